#include "reference_exec/gemini/execute.h"

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "reference_exec/gemini/l2.h"
#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

using Shape = std::array<int64_t, 4>;

// A dense NCHW tensor of int8 values widened to int16, so that kPoison fits
// beside every real value.
struct Tensor {
  Shape shape{};
  std::vector<int16_t> data;
  Tensor() = default;
  Tensor(Shape s, int16_t fill)
      : shape(s), data(static_cast<size_t>(s[0] * s[1] * s[2] * s[3]), fill) {}
  size_t Offset(const Index4& i) const {
    return static_cast<size_t>(((i[0] * shape[1] + i[1]) * shape[2] + i[2]) * shape[3] + i[3]);
  }
  bool Inside(const Index4& i) const {
    for (int d = 0; d < 4; ++d) {
      if (i[d] < 0 || i[d] >= shape[d]) return false;
    }
    return true;
  }
  int16_t At(const Index4& i) const { return data[Offset(i)]; }
  void Set(const Index4& i, int16_t v) { data[Offset(i)] = v; }
};

int16_t Clamp8(int64_t v) { return static_cast<int16_t>(std::clamp<int64_t>(v, -128, 127)); }

// Seeded parameters of one layer. Convolution weights are rank one,
// W[k][c][r][s] = u[k] * v[c][r][s]: the convolution stays exact and depends
// on every input element of its window, at 1/K of the cost.
struct LayerParams {
  std::vector<int64_t> u, bias;  // per output channel
  std::vector<int64_t> v;        // per (c, r, s)
};

uint64_t NameSeed(uint64_t seed, const std::string& name) {
  uint64_t h = seed * 0x9e3779b97f4a7c15ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

LayerParams MakeParams(const FrontendLayer& layer, uint64_t seed) {
  LayerParams p;
  std::mt19937_64 rng(NameSeed(seed, layer.name));
  const int64_t k = layer.output_shape[1];
  const int64_t c = layer.input_shapes.empty() ? 0 : layer.input_shapes[0][1];
  p.u.resize(static_cast<size_t>(k));
  p.bias.resize(static_cast<size_t>(k));
  for (auto& x : p.u) x = static_cast<int64_t>(rng() % 7) - 3;
  for (auto& x : p.bias) x = static_cast<int64_t>(rng() % 64) - 32;
  p.v.resize(static_cast<size_t>(c * layer.kernel[0] * layer.kernel[1]));
  for (auto& x : p.v) x = static_cast<int64_t>(rng() % 5) - 2;
  return p;
}

Tensor RandomTensor(Shape shape, uint64_t seed, const std::string& name) {
  Tensor t(shape, 0);
  std::mt19937_64 rng(NameSeed(seed, name));
  for (auto& x : t.data) x = static_cast<int16_t>(static_cast<int64_t>(rng() % 256) - 128);
  return t;
}

bool Modelled(Op op) { return op != Op::kOther; }

// The byte a weight tensor holds at `offset` in the byte-addressed L2: a
// pattern of its transfer id, so that any overwrite changes some byte.
uint8_t WeightByte(int64_t key, int64_t offset) {
  const auto mixed =
      static_cast<uint32_t>(offset) * 0x9e3779b1u + static_cast<uint32_t>(key) * 0x85ebca6bu;
  return static_cast<uint8_t>(mixed >> 24);
}

int64_t WeightKey(const BufferEntry& entry) {
  return entry.transfer_ids.empty() ? entry.tensor_id : entry.transfer_ids.front();
}

Index4 LocalIndex(size_t i, const Shape& shape) {
  auto rest = static_cast<int64_t>(i);
  Index4 local;
  for (int d = 3; d >= 0; --d) {
    local[d] = rest % shape[d];
    rest /= shape[d];
  }
  return local;
}

// Reads operand `j` at an absolute input position; kPoison when the piece is
// not available to the computation.
using Reader = std::function<int16_t(int j, const Index4& at)>;

// Computes the outputs of `layer` in the absolute box `out` with `read`,
// handing each to `write`. Positions outside the input shape are padding.
void ComputeBox(const FrontendLayer& layer, const LayerParams& p, const Range& out,
                const Reader& read, const std::function<void(const Index4&, int16_t)>& write) {
  const Shape in = layer.input_shapes.empty() ? layer.output_shape : layer.input_shapes[0];
  const int64_t kr = layer.kernel[0], ks = layer.kernel[1];
  const int64_t sh = layer.stride[0], sw = layer.stride[1];
  const int64_t pt = layer.padding[0], pl = layer.padding[1];
  for (int64_t n = out.lo[0]; n <= out.hi[0]; ++n) {
    for (int64_t h = out.lo[2]; h <= out.hi[2]; ++h) {
      for (int64_t w = out.lo[3]; w <= out.hi[3]; ++w) {
        if (layer.op == Op::kConv2d || layer.op == Op::kDense) {
          // One pass over the window gives the rank-one sum for every k.
          int64_t sum = 0;
          bool poison = false;
          for (int64_t c = 0; c < in[1] && !poison; ++c) {
            for (int64_t r = 0; r < kr && !poison; ++r) {
              for (int64_t s = 0; s < ks; ++s) {
                const Index4 at{n, c, h * sh - pt + r, w * sw - pl + s};
                if (at[2] < 0 || at[2] >= in[2] || at[3] < 0 || at[3] >= in[3]) continue;
                const int16_t x = read(0, at);
                if (x == kPoison) {
                  poison = true;
                  break;
                }
                sum += x * p.v[static_cast<size_t>((c * kr + r) * ks + s)];
              }
            }
          }
          for (int64_t k = out.lo[1]; k <= out.hi[1]; ++k) {
            const int16_t value =
                poison
                    ? kPoison
                    : Clamp8((sum * p.u[static_cast<size_t>(k)] + p.bias[static_cast<size_t>(k)]) >>
                             4);
            write({n, k, h, w}, value);
          }
          continue;
        }
        for (int64_t k = out.lo[1]; k <= out.hi[1]; ++k) {
          int64_t acc = layer.op == Op::kMaxPool ? INT64_MIN : 0;
          bool poison = false;
          if (layer.op == Op::kMaxPool || layer.op == Op::kAvgPool) {
            for (int64_t r = 0; r < kr && !poison; ++r) {
              for (int64_t s = 0; s < ks; ++s) {
                const Index4 at{n, k, h * sh - pt + r, w * sw - pl + s};
                if (at[2] < 0 || at[2] >= in[2] || at[3] < 0 || at[3] >= in[3]) continue;
                const int16_t x = read(0, at);
                if (x == kPoison) {
                  poison = true;
                  break;
                }
                acc = layer.op == Op::kMaxPool ? std::max<int64_t>(acc, x) : acc + x;
              }
            }
            if (layer.op == Op::kAvgPool) acc /= kr * ks;
          } else {
            const int operands = layer.op == Op::kAdd ? 2 : 1;
            for (int j = 0; j < operands; ++j) {
              const int16_t x = read(j, {n, k, h, w});
              if (x == kPoison) poison = true;
              acc += x;
            }
          }
          write({n, k, h, w}, poison ? kPoison : Clamp8(acc));
        }
      }
    }
  }
}

Range FullRange(const Shape& s) {
  Range r;
  for (int d = 0; d < 4; ++d) r.hi[d] = s[d] - 1;
  return r;
}

// Operand names: the previous layers that are activations (frontend layers
// or the network input), in order; constants are weights.
std::vector<std::string> Operands(const FrontendLayer& layer, const Frontend& frontend) {
  std::vector<std::string> names;
  for (const std::string& prev : layer.previous) {
    if (frontend.Find(prev) != nullptr || prev.rfind("input", 0) == 0) names.push_back(prev);
  }
  return names;
}

class Executor {
 public:
  Executor(const Ir& ir, const Frontend& frontend, const ExecuteOptions& options,
           const RunControl& control)
      : ir_(ir), frontend_(frontend), options_(options), control_(control), index_(ir) {}

  Execution Run();

 private:
  const Tensor& Input(const std::string& name, const Shape& shape) {
    auto it = inputs_.find(name);
    if (it == inputs_.end())
      it = inputs_.emplace(name, RandomTensor(shape, options_.seed, name)).first;
    return it->second;
  }
  const LayerParams& Params(const FrontendLayer& layer) {
    auto it = params_.find(layer.name);
    if (it == params_.end())
      it = params_.emplace(layer.name, MakeParams(layer, options_.seed)).first;
    return it->second;
  }
  // False when the deadline expired; the progress counts one more step.
  bool Step();
  void RunUntiled();
  // The layer that fills a buffer tensor, from its first source.
  std::string SourceLayer(const BufferEntry& entry) const;
  // The part of its producer's output a transfer carries, in the producer
  // workload's frame (ofmap ranges are local to it: docs/formats/gemini.md
  // §2.3), and where that part starts in the layer's absolute frame.
  struct Block {
    Range local;
    Index4 absolute_lo;
  };
  std::optional<Block> BlockOf(int64_t transfer_id) const;
  // The data of a buffer tensor, assembled from its sources, in its frame;
  // and where that frame's origin lies in the producer's absolute coordinates.
  Tensor Assemble(const BufferEntry& entry, Index4* origin) const;
  Tensor DramOutData(const DramOut& out) const;
  void RunWorkload(size_t c, const Workload& w);
  void Compare(const Core& core, const Workload& w, const Tensor& out);
  Index4 AbsoluteIndex(const Workload& w, const Tensor& out, size_t i) const;
  void Record(const Workload& w, const Tensor& out, const Tensor& reference);

  // The byte-addressed L2 (options_.l2_addressed).
  struct Placed {
    L2Placement place;
    const BufferEntry* entry;
  };
  // Where a transfer's data lands: a tensor on a core, at a box of its
  // frame; the producer's element at `from` (in its workload's frame) lands
  // at block.lo.
  struct Target {
    size_t core;
    int64_t tensor_id;
    Range block;
    Index4 from{};
  };
  // A target resolved to its live placement while the producer runs; only
  // the producer's elements in `carried` (the transfer's block) go to it.
  struct Sink {
    L2Memory* memory;
    const L2Placement* place;
    Range block;
    size_t core;
    Index4 from;
    Range carried;
    // Where the producer's element at `local` lands, when it does.
    std::optional<Index4> At(const Index4& local) const {
      Index4 to;
      for (int d = 0; d < 4; ++d) {
        if (local[d] < carried.lo[d] || local[d] > carried.hi[d]) return std::nullopt;
        to[d] = block.lo[d] + local[d] - from[d];
        if (to[d] < block.lo[d] || to[d] > block.hi[d]) return std::nullopt;
      }
      return to;
    }
  };
  bool AllocateL2();
  // Makes `w`'s snapshot the live set of core `c` and fills the tensors it
  // marks newly_added (I-B5), each at its address.
  void EnterSnapshot(size_t c, const Workload& w);
  void FillSource(size_t c, const BufferEntry& entry, const L2Placement& place, const Source& s);
  // Where the frame of a buffer tensor starts in its producer's absolute
  // coordinates, from its first resolvable source.
  std::optional<Index4> EntryOrigin(const BufferEntry& entry) const;
  std::vector<Sink> Sinks(const Workload& w);
  // The workload's weight bytes must be as they were filled.
  void CheckWeight(size_t c, const Workload& w);
  // Stores whose start_send is set leave for DRAM from their L2 bytes.
  void SendStores(size_t c, const Workload& w);

  const Ir& ir_;
  const Frontend& frontend_;
  ExecuteOptions options_;
  const RunControl& control_;
  uint64_t steps_ = 0, total_steps_ = 0;  // untiled layers and workloads
  IrIndex index_;
  std::map<std::string, Tensor> inputs_;
  std::map<std::string, LayerParams> params_;
  std::map<std::string, Tensor> untiled_;
  std::unordered_map<int64_t, Tensor> ofmaps_;  // transfer id -> workload output, local frame
  std::map<std::string, Tensor> dram_;          // layer -> its stores at absolute coordinates
  Execution result_;
  std::vector<L2Memory> l2_;  // per core
  std::vector<std::unordered_map<int64_t, Placed>>
      live_;  // per core: tensor_id -> its placement now
  std::unordered_map<int64_t, std::vector<Target>>
      targets_;  // transfer id -> where its data is awaited
  // A store entry: its producer's origin and the DRAM `in` ids it carries (I-T2).
  struct Store {
    Index4 origin;
    std::vector<int64_t> transfers;
  };
  // A DRAM reload waiting for the stores it reads (I-T11).
  struct Reload {
    size_t core;
    int64_t tensor_id;
    Source source;
  };
  bool Stored(const DramOut& out) const;
  void FillReloads();
  std::vector<std::unordered_map<int64_t, Store>>
      stores_;                          // per core: store tensor_id -> its producer
  std::unordered_set<int64_t> stored_;  // DRAM `in` ids sent from L2
  std::vector<Reload> reloads_;
};

bool Executor::Step() {
  if (control_.deadline.expired()) {
    result_.out_of_time = true;
    return false;
  }
  control_.Report(steps_++, total_steps_);
  return true;
}

void Executor::RunUntiled() {
  std::vector<const FrontendLayer*> order;
  for (const auto& [name, layer] : frontend_.layers) order.push_back(&layer);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->index < b->index; });
  for (const FrontendLayer* layer : order) {
    if (!Modelled(layer->op)) continue;
    if (!Step()) return;
    const auto operands = Operands(*layer, frontend_);
    std::vector<const Tensor*> tensors;
    for (size_t j = 0; j < operands.size(); ++j) {
      const auto it = untiled_.find(operands[j]);
      if (it != untiled_.end()) {
        tensors.push_back(&it->second);
      } else if (j < layer->input_shapes.size()) {
        tensors.push_back(&Input(operands[j], layer->input_shapes[j]));
      }
    }
    if (tensors.empty()) continue;
    Tensor out(layer->output_shape, kPoison);
    const Reader read = [&](int j, const Index4& at) -> int16_t {
      const Tensor* t = tensors[std::min<size_t>(static_cast<size_t>(j), tensors.size() - 1)];
      return t->Inside(at) ? t->At(at) : kPoison;
    };
    ComputeBox(*layer, Params(*layer), FullRange(layer->output_shape), read,
               [&](const Index4& i, int16_t v) { out.Set(i, v); });
    untiled_.emplace(layer->name, std::move(out));
  }
}

std::optional<Executor::Block> Executor::BlockOf(int64_t transfer_id) const {
  const auto producer = index_.OfmapProducer(transfer_id);
  if (!producer) return std::nullopt;
  const Workload& w = index_.At(*producer);
  for (const Ofmap& o : w.ofmaps) {
    if (o.transfer_id != transfer_id) continue;
    Block block{o.range, {}};
    for (int d = 0; d < 4; ++d) block.absolute_lo[d] = w.range.lo[d] + o.range.lo[d];
    return block;
  }
  return std::nullopt;
}

// The part `block` (in the frame of `out`) of a workload's output.
Tensor Crop(const Tensor& out, const Range& block) {
  Shape shape;
  for (int d = 0; d < 4; ++d) {
    shape[d] = std::max<int64_t>(std::min(block.hi[d], out.shape[d] - 1) - block.lo[d] + 1, 0);
  }
  Tensor part(shape, kPoison);
  for (size_t i = 0; i < part.data.size(); ++i) {
    const Index4 local = LocalIndex(i, shape);
    const Index4 at{local[0] + block.lo[0], local[1] + block.lo[1], local[2] + block.lo[2],
                    local[3] + block.lo[3]};
    if (out.Inside(at)) part.data[i] = out.At(at);
  }
  return part;
}

std::string Executor::SourceLayer(const BufferEntry& entry) const {
  if (entry.sources.empty()) return {};
  const Source& s = entry.sources.front();
  if (s.type == SourceType::kCore) return ir_.LayerName(s.layer);
  const auto out = index_.DramOut(s.transfer_id);
  if (!out || ir_.dram_out[*out].related_ifmap.empty()) return "input1";
  const auto in = index_.DramIn(ir_.dram_out[*out].related_ifmap.front());
  return in ? ir_.LayerName(ir_.dram_in[*in].layer) : std::string();
}

Tensor Executor::DramOutData(const DramOut& out) const {
  Shape shape;
  for (int d = 0; d < 4; ++d) shape[d] = Extent(out.range, d);
  Tensor t(shape, kPoison);
  const Tensor* source = nullptr;
  if (out.related_ifmap.empty()) {
    // The network input, shaped by the first consumer's first operand.
    for (const Destination& d : out.destinations) {
      const FrontendLayer* layer = frontend_.Find(ir_.LayerName(d.layer));
      if (layer == nullptr) continue;
      const auto operands = Operands(*layer, frontend_);
      if (!operands.empty() && inputs_.count(operands[0]) != 0) source = &inputs_.at(operands[0]);
      break;
    }
  } else if (const auto in = index_.DramIn(out.related_ifmap.front())) {
    const auto it = dram_.find(ir_.LayerName(ir_.dram_in[*in].layer));
    if (it != dram_.end()) source = &it->second;
  }
  if (source == nullptr) return t;
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t c = 0; c < shape[1]; ++c)
      for (int64_t h = 0; h < shape[2]; ++h)
        for (int64_t w = 0; w < shape[3]; ++w) {
          const Index4 abs{out.range.lo[0] + n, out.range.lo[1] + c, out.range.lo[2] + h,
                           out.range.lo[3] + w};
          if (source->Inside(abs)) t.Set({n, c, h, w}, source->At(abs));
        }
  return t;
}

Tensor Executor::Assemble(const BufferEntry& entry, Index4* origin) const {
  Shape shape;
  for (int d = 0; d < 4; ++d) shape[d] = entry.range.hi[d] + 1;
  Tensor t(shape, kPoison);
  bool first = true;
  for (const Source& s : entry.sources) {
    Tensor piece;
    Index4 abs_lo{};
    if (s.type == SourceType::kCore) {
      const auto it = ofmaps_.find(s.transfer_id);
      const auto block = BlockOf(s.transfer_id);
      if (it == ofmaps_.end() || !block) continue;  // not produced yet: stays poison
      piece = it->second;
      abs_lo = block->absolute_lo;
    } else if (const auto out = index_.DramOut(s.transfer_id)) {
      piece = DramOutData(ir_.dram_out[*out]);
      abs_lo = ir_.dram_out[*out].range.lo;
    } else {
      continue;
    }
    if (first) {
      for (int d = 0; d < 4; ++d) (*origin)[d] = abs_lo[d] - s.range.lo[d];
      first = false;
    }
    for (int64_t n = 0; n < piece.shape[0]; ++n)
      for (int64_t c = 0; c < piece.shape[1]; ++c)
        for (int64_t h = 0; h < piece.shape[2]; ++h)
          for (int64_t w = 0; w < piece.shape[3]; ++w) {
            const Index4 to{s.range.lo[0] + n, s.range.lo[1] + c, s.range.lo[2] + h,
                            s.range.lo[3] + w};
            if (t.Inside(to) && to[0] <= s.range.hi[0] && to[1] <= s.range.hi[1] &&
                to[2] <= s.range.hi[2] && to[3] <= s.range.hi[3]) {
              t.Set(to, piece.At({n, c, h, w}));
            }
          }
  }
  return t;
}

std::optional<Index4> Executor::EntryOrigin(const BufferEntry& entry) const {
  for (const Source& s : entry.sources) {
    Index4 abs_lo;
    if (s.type == SourceType::kCore) {
      const auto block = BlockOf(s.transfer_id);
      if (!block) continue;
      abs_lo = block->absolute_lo;
    } else if (const auto out = index_.DramOut(s.transfer_id)) {
      for (int d = 0; d < 4; ++d) abs_lo[d] = ir_.dram_out[*out].range.lo[d];
    } else {
      continue;
    }
    Index4 origin;
    for (int d = 0; d < 4; ++d) origin[d] = abs_lo[d] - s.range.lo[d];
    return origin;
  }
  return std::nullopt;
}

bool Executor::AllocateL2() {
  const auto total =
      CheckedMul(ir_.cores.size(), static_cast<uint64_t>(std::max<int64_t>(ir_.buffersize, 0)));
  if (!total || *total > options_.max_l2_bytes) {
    result_.limit =
        Str("the byte-addressed L2 needs ", ir_.cores.size(), " cores x ", ir_.buffersize,
            " bytes, more than the limit of ", options_.max_l2_bytes, " bytes");
    return false;
  }
  for (size_t c = 0; c < ir_.cores.size(); ++c)
    l2_.emplace_back(std::max<int64_t>(ir_.buffersize, 0));
  live_.resize(ir_.cores.size());
  stores_.resize(ir_.cores.size());
  return true;
}

// Copies `piece` (a producer's data, from its origin) into `block` of a tensor.
void CopyInto(L2Memory& memory, const L2Placement& place, const Tensor& piece, const Range& block) {
  for (size_t i = 0; i < piece.data.size(); ++i) {
    const Index4 from = LocalIndex(i, piece.shape);
    Index4 to;
    bool inside = true;
    for (int d = 0; d < 4; ++d) {
      to[d] = block.lo[d] + from[d];
      inside = inside && to[d] <= block.hi[d];
    }
    if (inside) memory.Store(place, to, piece.data[i]);
  }
}

void Executor::FillSource(size_t c, const BufferEntry& entry, const L2Placement& place,
                          const Source& s) {
  if (s.type == SourceType::kCore) {
    const auto it = ofmaps_.find(s.transfer_id);
    if (it == ofmaps_.end()) {
      // Not produced yet: the producer writes it here, tile by tile.
      const auto block = BlockOf(s.transfer_id);
      if (block) targets_[s.transfer_id].push_back({c, entry.tensor_id, s.range, block->local.lo});
      return;
    }
    CopyInto(l2_[c], place, it->second, s.range);
  } else if (const auto out = index_.DramOut(s.transfer_id)) {
    // A reload of data not stored yet arrives once the stores are sent.
    if (!Stored(ir_.dram_out[*out])) {
      reloads_.push_back({c, entry.tensor_id, s});
      return;
    }
    CopyInto(l2_[c], place, DramOutData(ir_.dram_out[*out]), s.range);
  }
}

bool Executor::Stored(const DramOut& out) const {
  return std::all_of(out.related_ifmap.begin(), out.related_ifmap.end(),
                     [&](int64_t id) { return stored_.count(id) != 0; });
}

void Executor::FillReloads() {
  std::vector<Reload> waiting;
  for (const Reload& r : reloads_) {
    const auto out = index_.DramOut(r.source.transfer_id);
    if (!out || !Stored(ir_.dram_out[*out])) {
      waiting.push_back(r);
      continue;
    }
    const auto placed = live_[r.core].find(r.tensor_id);
    if (placed != live_[r.core].end())
      CopyInto(l2_[r.core], placed->second.place, DramOutData(ir_.dram_out[*out]), r.source.range);
  }
  reloads_ = std::move(waiting);
}

void Executor::EnterSnapshot(size_t c, const Workload& w) {
  std::unordered_map<int64_t, Placed> next;
  std::vector<Placed> fresh;
  for (const BufferEntry& entry : w.buffer) {
    const auto place = entry.type == EntryType::kWeight
                           ? L2Placement::Block(entry, w, ir_.buffersize)
                           : L2Placement::Fmap(entry, w, ir_.buffersize);
    if (!place) continue;
    // ofmap-type entries carry no newly_added: they are new when first seen.
    if (entry.newly_added.value_or(live_[c].count(entry.tensor_id) == 0))
      fresh.push_back({*place, &entry});
    next.insert_or_assign(entry.tensor_id, Placed{*place, &entry});
  }
  live_[c] = std::move(next);
  for (const auto& [place, entry] : fresh) {
    l2_[c].Clear(place);
    switch (entry->type) {
      case EntryType::kWeight:
        for (int64_t i = 0; i < place.size(); ++i)
          l2_[c].SetByte(place.ByteAddress(i), WeightByte(WeightKey(*entry), i));
        break;
      case EntryType::kOfmap:
        // The store of this workload's output (I-B10), in the workload's frame.
        if (entry->layer != w.layer) break;
        stores_[c][entry->tensor_id].origin = {w.range.lo[0], w.range.lo[1], w.range.lo[2],
                                               w.range.lo[3]};
        for (const Ofmap& o : w.ofmaps) {
          targets_[o.transfer_id].push_back({c, entry->tensor_id, entry->range});
          stores_[c][entry->tensor_id].transfers.push_back(o.transfer_id);
        }
        break;
      case EntryType::kIfmap:
        for (const Source& s : entry->sources) FillSource(c, *entry, place, s);
        break;
    }
  }
}

void Executor::CheckWeight(size_t c, const Workload& w) {
  if (!w.weight || result_.first_mismatch) return;
  for (const auto& [tensor_id, placed] : live_[c]) {
    const BufferEntry& entry = *placed.entry;
    if (entry.type != EntryType::kWeight ||
        std::none_of(entry.transfer_ids.begin(), entry.transfer_ids.end(), [&](int64_t id) {
          return std::find(w.weight->transfer_ids.begin(), w.weight->transfer_ids.end(), id) !=
                 w.weight->transfer_ids.end();
        })) {
      continue;
    }
    for (int64_t i = 0; i < placed.place.size(); ++i) {
      const int64_t address = placed.place.ByteAddress(i);
      const int16_t actual = l2_[c].Byte(address);
      const uint8_t expected = WeightByte(WeightKey(entry), i);
      if (actual == expected) continue;
      Mismatch m{ir_.cores[c].id,
                 w.id,
                 -1,
                 ir_.LayerName(w.layer),
                 {0, 0, 0, i},
                 expected,
                 actual < 0 ? kPoison : actual,
                 address,
                 true};
      result_.first_mismatch = m;
      return;
    }
  }
}

std::vector<Executor::Sink> Executor::Sinks(const Workload& w) {
  std::vector<Sink> sinks;
  for (const Ofmap& o : w.ofmaps) {
    const auto it = targets_.find(o.transfer_id);
    if (it == targets_.end()) continue;
    for (const Target& t : it->second) {
      const auto placed = live_[t.core].find(t.tensor_id);
      if (placed != live_[t.core].end())
        sinks.push_back({&l2_[t.core], &placed->second.place, t.block, t.core, t.from, o.range});
    }
  }
  return sinks;
}

void Executor::SendStores(size_t c, const Workload& w) {
  for (const BufferEntry& entry : w.buffer) {
    if (entry.type != EntryType::kOfmap || !entry.start_send.value_or(false)) continue;
    const auto placed = live_[c].find(entry.tensor_id);
    const auto origin = stores_[c].find(entry.tensor_id);
    const FrontendLayer* layer = frontend_.Find(ir_.LayerName(entry.layer));
    if (placed == live_[c].end() || origin == stores_[c].end() || layer == nullptr) continue;
    auto it = dram_.find(layer->name);
    if (it == dram_.end())
      it = dram_.emplace(layer->name, Tensor(layer->output_shape, kPoison)).first;
    Shape shape;
    for (int d = 0; d < 4; ++d) shape[d] = int64_t{entry.range.hi[d]} + 1;
    const size_t volume = static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]);
    for (size_t i = 0; i < volume; ++i) {
      const Index4 local = LocalIndex(i, shape);
      Index4 abs;
      for (int d = 0; d < 4; ++d) abs[d] = origin->second.origin[d] + local[d];
      if (it->second.Inside(abs)) it->second.Set(abs, l2_[c].Load(placed->second.place, local));
    }
    stored_.insert(origin->second.transfers.begin(), origin->second.transfers.end());
  }
  FillReloads();
}

void Executor::RunWorkload(size_t c, const Workload& w) {
  const Core& core = ir_.cores[c];
  const bool l2 = options_.l2_addressed;
  if (l2) {
    EnterSnapshot(c, w);
    CheckWeight(c, w);
  }
  const std::string& name = ir_.LayerName(w.layer);
  const FrontendLayer* layer = frontend_.Find(name);
  Shape shape;
  for (int d = 0; d < 4; ++d) shape[d] = Extent(w.range, d);
  Tensor out(shape, kPoison);
  if (layer == nullptr || !Modelled(layer->op)) {
    if (std::find(result_.skipped_layers.begin(), result_.skipped_layers.end(), name) ==
        result_.skipped_layers.end()) {
      result_.skipped_layers.push_back(name);
    }
    for (const Ofmap& o : w.ofmaps) {
      ofmaps_[o.transfer_id] = Crop(out, o.range);
      targets_.erase(o.transfer_id);
    }
    return;
  }
  // Operand j: the ifmap whose tensor the j-th previous layer fills.
  const auto operands = Operands(*layer, frontend_);
  struct View {
    Tensor data;                         // value level
    const L2Placement* place = nullptr;  // byte-addressed L2
    Index4 origin{};
    Range window;
    bool present = false;
  };
  std::vector<View> views(std::max<size_t>(operands.size(), 1));
  for (const Ifmap& f : w.ifmaps) {
    for (const BufferEntry& entry : w.buffer) {
      if (!entry.cur_wl_ifmap || f.transfer_ids.empty() ||
          std::find(entry.transfer_ids.begin(), entry.transfer_ids.end(), f.transfer_ids[0]) ==
              entry.transfer_ids.end()) {
        continue;
      }
      const std::string source = SourceLayer(entry);
      size_t j = 0;
      while (j < operands.size() && operands[j] != source) ++j;
      if (j == operands.size()) j = 0;
      if (views[j].present) ++j;  // the same layer feeding both operands
      if (j >= views.size()) break;
      if (l2) {
        const auto placed = live_[c].find(entry.tensor_id);
        const auto origin = EntryOrigin(entry);
        if (placed != live_[c].end() && origin) {
          views[j].place = &placed->second.place;
          views[j].origin = *origin;
        }
      } else {
        views[j].data = Assemble(entry, &views[j].origin);
      }
      views[j].window = f.range;
      views[j].present = !l2 || views[j].place != nullptr;
      break;
    }
  }
  const std::vector<Sink> sinks = l2 ? Sinks(w) : std::vector<Sink>{};
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    const Reader read = [&](int j, const Index4& at) -> int16_t {
      const Range& declared = (j == 1 && tile.ifmap2) ? *tile.ifmap2 : tile.ifmap;
      Range point;
      point.lo = at;
      point.hi = at;
      if (!Contains(declared, point)) return kPoison;
      const View& view = views[std::min<size_t>(static_cast<size_t>(j), views.size() - 1)];
      if (!view.present) return kPoison;
      Index4 rel;
      Range local;
      for (int d = 0; d < 4; ++d) {
        rel[d] = at[d] - view.origin[d];
        local.lo[d] = local.hi[d] = rel[d];
      }
      if (!Contains(view.window, local)) return kPoison;
      if (view.place != nullptr) return l2_[c].Load(*view.place, rel);
      return view.data.Inside(rel) ? view.data.At(rel) : kPoison;
    };
    ComputeBox(*layer, Params(*layer), tile.ofmap, read, [&](const Index4& i, int16_t v) {
      const Index4 local{i[0] - w.range.lo[0], i[1] - w.range.lo[1], i[2] - w.range.lo[2],
                         i[3] - w.range.lo[3]};
      if (!out.Inside(local)) return;
      out.Set(local, v);
      // The tile's output goes straight to every tensor awaiting it.
      for (const Sink& sink : sinks) {
        if (const auto to = sink.At(local)) sink.memory->Store(*sink.place, *to, v);
      }
    });
  }
  Compare(core, w, out);
  if (result_.first_mismatch && !result_.first_mismatch->weight &&
      result_.first_mismatch->workload_id == w.id && result_.first_mismatch->core_id == core.id &&
      !result_.first_mismatch->l2_address) {
    // Where the element lies in this core's L2, when the workload keeps it there.
    Mismatch& m = *result_.first_mismatch;
    const Index4 local{m.at[0] - w.range.lo[0], m.at[1] - w.range.lo[1], m.at[2] - w.range.lo[2],
                       m.at[3] - w.range.lo[3]};
    for (const Sink& sink : sinks) {
      const auto to = sink.core == c ? sink.At(local) : std::nullopt;
      if (!to || !sink.place->Inside(*to)) continue;
      m.l2_address = sink.place->ElementAddress(*to);
      break;
    }
  }
  for (const Ofmap& o : w.ofmaps) {
    ofmaps_[o.transfer_id] = Crop(out, o.range);
    targets_.erase(o.transfer_id);
    const bool to_dram =
        std::any_of(o.destinations.begin(), o.destinations.end(),
                    [](const Destination& d) { return d.type == DestinationType::kDram; });
    if (!to_dram || l2) continue;
    auto it = dram_.find(name);
    if (it == dram_.end()) it = dram_.emplace(name, Tensor(layer->output_shape, kPoison)).first;
    for (size_t i = 0; i < out.data.size(); ++i) {
      const Index4 local = LocalIndex(i, shape);
      Index4 abs;
      for (int d = 0; d < 4; ++d) abs[d] = local[d] + w.range.lo[d];
      if (it->second.Inside(abs)) it->second.Set(abs, out.data[i]);
    }
  }
  if (l2) SendStores(c, w);
}

Index4 Executor::AbsoluteIndex(const Workload& w, const Tensor& out, size_t i) const {
  const Index4 local = LocalIndex(i, out.shape);
  return {local[0] + w.range.lo[0], local[1] + w.range.lo[1], local[2] + w.range.lo[2],
          local[3] + w.range.lo[3]};
}

void Executor::Record(const Workload& w, const Tensor& out, const Tensor& reference) {
  for (size_t i = 0; i < out.data.size(); ++i) {
    const Index4 abs = AbsoluteIndex(w, out, i);
    options_.record->tiled.push_back(out.data[i]);
    options_.record->untiled.push_back(reference.Inside(abs) ? reference.At(abs) : kPoison);
  }
}

// Compares a workload's output with the untiled run; the first differing
// element becomes the mismatch.
void Executor::Compare(const Core& core, const Workload& w, const Tensor& out) {
  const std::string& name = ir_.LayerName(w.layer);
  const auto reference = untiled_.find(name);
  ++result_.workloads;
  if (reference == untiled_.end()) return;
  if (options_.record != nullptr) Record(w, out, reference->second);
  if (result_.first_mismatch) return;
  for (size_t i = 0; i < out.data.size(); ++i) {
    ++result_.elements;
    const Index4 abs = AbsoluteIndex(w, out, i);
    const int16_t expected = reference->second.Inside(abs) ? reference->second.At(abs) : kPoison;
    if (out.data[i] == expected) continue;
    Mismatch m{core.id, w.id, -1, name, abs, expected, out.data[i], std::nullopt, false};
    Range point;
    point.lo = abs;
    point.hi = abs;
    for (size_t t = 0; t < w.tiles.size(); ++t) {
      if (Contains(w.tiles[t].ofmap, point)) m.tile = static_cast<int64_t>(t);
    }
    result_.first_mismatch = m;
    return;
  }
}

Execution Executor::Run() {
  if (options_.l2_addressed && !AllocateL2()) return result_;
  for (const auto& [name, layer] : frontend_.layers) total_steps_ += Modelled(layer.op) ? 1 : 0;
  for (const Core& core : ir_.cores) total_steps_ += core.workloads.size();
  RunUntiled();
  if (result_.out_of_time) return result_;
  // Workloads in an order that respects every dependency: the wait-for
  // graph's topological order, by repeatedly taking runnable core heads.
  std::vector<size_t> pc(ir_.cores.size(), 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t c = 0; c < ir_.cores.size(); ++c) {
      while (pc[c] < ir_.cores[c].workloads.size()) {
        const Workload& w = ir_.cores[c].workloads[pc[c]];
        bool ready = true;
        for (const Ifmap& f : w.ifmaps) {
          for (int64_t id : f.transfer_ids) {
            if (index_.OfmapProducer(id) && ofmaps_.count(id) == 0) ready = false;
          }
        }
        if (!ready) break;
        if (!Step()) return result_;
        RunWorkload(c, w);
        ++pc[c];
        progress = true;
      }
    }
  }
  return result_;
}

}  // namespace

Execution Execute(const Ir& ir, const Frontend& frontend, const ExecuteOptions& options,
                  const RunControl& control) {
  return Executor(ir, frontend, options, control).Run();
}

}  // namespace accelcheck::gemini
