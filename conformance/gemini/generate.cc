#include "conformance/gemini/generate.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <random>
#include <vector>

#include "validators/core/text.h"

namespace accelcheck::gemini {

namespace {

int64_t Align8(int64_t v) { return (v + 7) / 8 * 8; }

// The product of option values, or nullopt when it overflows.
std::optional<int64_t> CheckedProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (const int64_t f : factors) {
    if (__builtin_mul_overflow(product, f, &product)) return std::nullopt;
  }
  return product;
}

struct Rows {
  int64_t lo, hi;  // inclusive
};

// The operations a generated network is made of; kFc expands to kGap + kDense.
enum class Op : uint8_t { kConv, kMaxPool, kAvgPool, kAdd, kGap, kDense };

std::string NameOf(Op op, int layer) {
  static constexpr const char* kPrefix[] = {"conv_", "maxpool_", "avgpool_", "add_", "gap_", "fc_"};
  return Str(kPrefix[static_cast<int>(op)], layer);
}

struct Layer {
  Op op;
  int input;          // the layer whose output it reads, or -1 for the network input
  int residual;       // the second operand of an add, else -1
  int64_t channels;   // output
  int64_t height;     // output rows
  int64_t width;      // output columns
  int64_t in_height;  // of the input
  int64_t in_width;
  int cores;  // split by rows over cores 0..cores-1
};

// One workload: layer l on core p.
struct Work {
  int layer;
  int core;
  int64_t id;  // workload_id on its core
  Rows rows;
  int64_t ofmap_transfer;
};

// One L2 tensor of a core. It keeps its tensor_id and address over the run of
// snapshots it lives in (I-B4), and an input a later layer reads again (the
// residual of an add) lives from its first reader through its last (I-B8).
struct Tensor {
  enum class Kind : uint8_t { kWeight, kInput, kStore };
  Kind kind;
  int source = -1;  // kInput: the layer whose outputs it merges, -1 for the network input
  Rows rows{0, 0};  // kInput: the rows of that output it holds
  std::vector<const Work*> producers;  // kInput from a layer, by rows
  size_t first = 0, last = 0;  // positions of its first and last snapshot in the core's workloads
  int64_t id = 0;              // tensor_id
  int64_t address = 0;
  int64_t bytes = 0;
  int64_t order = -1;  // tensor_order, given where it is first written
};

// A core's workloads and the L2 tensors of their snapshots.
struct CorePlan {
  std::vector<const Work*> works;  // in order
  std::vector<Tensor> tensors;
  std::vector<std::vector<size_t>> snapshots;  // per workload: its tensors, in the order written
};

std::string Box(int64_t n, int64_t c, int64_t h, int64_t w) {
  return Str("[", n, ",", c, ",", h, ",", w, "]");
}

bool IsPe(Op op) { return op == Op::kConv || op == Op::kDense; }
bool IsWindow3x3(Op op) { return op == Op::kConv || op == Op::kMaxPool || op == Op::kAvgPool; }

class Scheduler {
 public:
  explicit Scheduler(const GenerateOptions& o) : o_(o), cores_(o.mesh_x * o.mesh_y) {}
  std::optional<std::string> Plan();
  void WriteIr(std::ostream& out);
  void BuildLayers();
  void WriteFrontend(std::ostream& out) const;

 private:
  const Layer& LayerOf(const Work& w) const { return layers_[static_cast<size_t>(w.layer)]; }
  int64_t FmapBytes(int64_t channels, int64_t rows, int64_t width) const {
    return o_.batch * Align8(channels) * rows * width;
  }
  int64_t OutBytes(const Layer& l, int64_t rows) const {
    return FmapBytes(l.channels, rows, l.width);
  }
  int64_t InChannels(const Layer& l) const {
    return l.input < 0 ? o_.channels : layers_[static_cast<size_t>(l.input)].channels;
  }
  int64_t InBytes(const Layer& l, int64_t rows) const {
    return FmapBytes(InChannels(l), rows, l.in_width);
  }
  int64_t WeightRs(const Layer& l) const { return l.op == Op::kConv ? 9 : 1; }
  int64_t WeightBytes(const Layer& l) const {
    return l.channels * Align8(InChannels(l)) * WeightRs(l) + 32 * l.channels;
  }
  std::string WeightUpper(const Layer& l) const {
    return Box(0, l.channels - 1, InChannels(l) - 1, WeightRs(l) - 1);
  }
  // The input rows an output row range needs (the layer's receptive field).
  Rows Needed(const Layer& l, Rows out) const;
  std::array<int64_t, 4> TilePadding(const Layer& l, Rows out) const;
  // The producers (workloads of `source`) whose rows meet `need`, by rows.
  std::vector<const Work*> Producers(int source, Rows need) const;
  std::string Name(int layer) const;
  // The operands of a layer: its input, then its residual.
  std::vector<int> Operands(const Layer& l) const;
  // The input tensors of one core: one per layer it reads, merging what
  // every reader on the core needs.
  void PlanInputs(CorePlan& plan) const;
  // Each workload's snapshot, and first-fit addresses for the tensors that
  // enter it around those that stay.
  std::optional<std::string> PlanSnapshots(int core, CorePlan& plan) const;
  void WriteWorkload(std::ostream& out, CorePlan& plan, size_t position);
  void WriteTile(std::ostream& out, const Work& w, int64_t t, Rows r) const;
  void WriteDestinations(std::ostream& out, const Work& w) const;
  void WriteEntry(std::ostream& out, const Work& w, Tensor& t, bool newly_added);

  GenerateOptions o_;
  int cores_;
  std::vector<Layer> layers_;
  std::vector<Work> works_;          // by layer, then core
  std::vector<size_t> layer_begin_;  // per layer: its first workload in works_, then the end
  std::vector<CorePlan> plans_;      // per core
  std::vector<std::vector<int64_t>> input_;  // DRAM out id of each layer-0 workload's input
  std::vector<int64_t> weight_transfer_;     // per layer (-1 without weights)
  int64_t next_transfer_ = 0;
  int64_t next_order_ = 0;
  int64_t core_fed_order_ = 0;  // the sentinel: the number of DRAM-queue items
};

std::string Scheduler::Name(int layer) const {
  return NameOf(layers_[static_cast<size_t>(layer)].op, layer);
}

std::vector<int> Scheduler::Operands(const Layer& l) const {
  std::vector<int> operands{l.input};
  if (l.residual >= 0) operands.push_back(l.residual);
  return operands;
}

void Scheduler::BuildLayers() {
  std::vector<LayerKind> kinds = o_.kinds;
  if (kinds.empty()) kinds.assign(static_cast<size_t>(std::max(o_.layers, 0)), LayerKind::kConv);
  for (const LayerKind kind : kinds) {
    const int index = static_cast<int>(layers_.size());
    Layer l{Op::kConv, index - 1, -1,       o_.channels, o_.height,
            o_.width,  o_.height, o_.width, cores_};
    switch (kind) {
      case LayerKind::kConv:
        break;
      case LayerKind::kMaxPool:
        l.op = Op::kMaxPool;
        break;
      case LayerKind::kAvgPool:
        l.op = Op::kAvgPool;
        break;
      case LayerKind::kAdd:
        l.op = Op::kAdd;
        l.residual = index - 2;  // the input of the layer before: the block's input
        break;
      case LayerKind::kFc:
        // The global average pool of the real files, then the dense layer.
        l.op = Op::kGap;
        l.height = l.width = 1;
        l.cores = 1;
        layers_.push_back(l);
        l = {Op::kDense, index, -1, o_.channels, 1, 1, 1, 1, 1};
        break;
    }
    layers_.push_back(l);
  }
}

Rows Scheduler::Needed(const Layer& l, Rows out) const {
  if (IsWindow3x3(l.op))
    return {std::max<int64_t>(out.lo - 1, 0), std::min(out.hi + 1, l.in_height - 1)};
  if (l.op == Op::kGap) return {0, l.in_height - 1};
  return out;
}

std::array<int64_t, 4> Scheduler::TilePadding(const Layer& l, Rows out) const {
  if (!IsWindow3x3(l.op)) return {0, 0, 0, 0};
  return {out.lo == 0 ? 1 : 0, out.hi == l.height - 1 ? 1 : 0, 1, 1};
}

std::vector<const Work*> Scheduler::Producers(int source, Rows need) const {
  std::vector<const Work*> out;
  const auto layer = static_cast<size_t>(source);
  for (size_t i = layer_begin_[layer]; i < layer_begin_[layer + 1]; ++i) {
    const Work& w = works_[i];
    if (w.rows.hi >= need.lo && w.rows.lo <= need.hi) out.push_back(&w);
  }
  return out;
}

void Scheduler::PlanInputs(CorePlan& plan) const {
  std::vector<size_t> input_of(layers_.size() + 1, SIZE_MAX);  // source layer + 1 -> tensor
  for (size_t i = 0; i < plan.works.size(); ++i) {
    const Work& w = *plan.works[i];
    const Layer& l = LayerOf(w);
    const Rows need = Needed(l, w.rows);
    for (const int source : Operands(l)) {
      size_t& index = input_of[static_cast<size_t>(source + 1)];
      if (index == SIZE_MAX) {
        index = plan.tensors.size();
        plan.tensors.push_back({Tensor::Kind::kInput, source, need, {}, i, i, 0, 0, 0, -1});
      }
      Tensor& t = plan.tensors[index];
      t.last = i;
      if (source < 0) continue;
      for (const Work* p : Producers(source, need)) {
        if (std::find(t.producers.begin(), t.producers.end(), p) == t.producers.end())
          t.producers.push_back(p);
      }
      std::sort(t.producers.begin(), t.producers.end(),
                [](const Work* a, const Work* b) { return a->rows.lo < b->rows.lo; });
      t.rows = {t.producers.front()->rows.lo, t.producers.back()->rows.hi};
    }
  }
  for (Tensor& t : plan.tensors)
    t.bytes = InBytes(LayerOf(*plan.works[t.first]), t.rows.hi - t.rows.lo + 1);
}

std::optional<std::string> Scheduler::PlanSnapshots(int core, CorePlan& plan) const {
  const int last_layer = static_cast<int>(layers_.size()) - 1;
  const size_t inputs = plan.tensors.size();
  int64_t next_tensor = 0;
  for (size_t i = 0; i < plan.works.size(); ++i) {
    const Work& w = *plan.works[i];
    const Layer& l = LayerOf(w);
    std::vector<size_t> snapshot;
    if (IsPe(l.op)) {
      snapshot.push_back(plan.tensors.size());
      plan.tensors.push_back(
          {Tensor::Kind::kWeight, -1, {0, 0}, {}, i, i, 0, 0, WeightBytes(l), -1});
    }
    // The operands first, then the inputs kept for a later reader.
    for (const int source : Operands(l)) {
      for (size_t t = 0; t < inputs; ++t) {
        if (plan.tensors[t].source == source && plan.tensors[t].first <= i &&
            i <= plan.tensors[t].last)
          snapshot.push_back(t);
      }
    }
    for (size_t t = 0; t < inputs; ++t) {
      const Tensor& input = plan.tensors[t];
      if (input.first <= i && i <= input.last &&
          std::find(snapshot.begin(), snapshot.end(), t) == snapshot.end()) {
        snapshot.push_back(t);
      }
    }
    if (w.layer == last_layer) {
      snapshot.push_back(plan.tensors.size());
      plan.tensors.push_back({Tensor::Kind::kStore,
                              -1,
                              {0, 0},
                              {},
                              i,
                              i,
                              0,
                              0,
                              OutBytes(l, w.rows.hi - w.rows.lo + 1),
                              -1});
    }
    // A ring allocation that never hands a live tensor's bytes to another:
    // each entering tensor takes the lowest free gap.
    std::vector<std::pair<int64_t, int64_t>> taken;  // [address, end)
    for (const size_t t : snapshot) {
      if (plan.tensors[t].first < i)
        taken.emplace_back(plan.tensors[t].address,
                           plan.tensors[t].address + plan.tensors[t].bytes);
    }
    for (const size_t t : snapshot) {
      Tensor& tensor = plan.tensors[t];
      if (tensor.first < i) continue;
      std::sort(taken.begin(), taken.end());
      int64_t address = 0;
      for (const auto& [start, end] : taken) {
        if (address + tensor.bytes <= start) break;
        address = std::max(address, Align8(end));
      }
      if (address + tensor.bytes > o_.buffer) {
        return Str("the snapshot of core ", core, " before workload ", w.id, " needs ",
                   address + tensor.bytes, " bytes but the buffer has ", o_.buffer);
      }
      tensor.id = next_tensor++;
      tensor.address = address;
      taken.emplace_back(address, address + tensor.bytes);
    }
    plan.snapshots.push_back(std::move(snapshot));
  }
  return std::nullopt;
}

std::optional<std::string> Scheduler::Plan() {
  if (o_.batch < 1 || o_.channels < 1 || o_.width < 1 || o_.tiles < 1 || cores_ < 1) {
    return "layers, batch, channels, width, tiles and the mesh must be at least 1";
  }
  if (o_.kinds.empty() && o_.layers < 1)
    return "layers, batch, channels, width, tiles and the mesh must be at least 1";
  for (size_t i = 0; i < o_.kinds.size(); ++i) {
    if (o_.kinds[i] == LayerKind::kFc && i + 1 != o_.kinds.size())
      return "fc must be the last layer";
  }
  if (o_.height < cores_)
    return Str("height ", o_.height, " gives fewer rows than the ", cores_, " cores");
  // Every size below is at most a whole layer output or a 3x3 weight (9
  // bytes per channel pair, 32 per output channel); with a factor 4 of
  // headroom for the sums of sizes and addresses, none of them overflows.
  if (!CheckedProduct({o_.batch, Align8(o_.channels), o_.height, o_.width, 4}) ||
      !CheckedProduct({o_.channels, Align8(o_.channels), 9 + 32, 4})) {
    return Str("a layer of ", o_.batch, "x", o_.channels, "x", o_.height, "x", o_.width,
               " overflows 64-bit sizes");
  }
  BuildLayers();
  for (const Layer& l : layers_) {
    if (l.op == Op::kAdd && l.residual < 0) return "an add needs two layers before it";
  }
  // Transfer ids: weights first, then the network input blocks, then ofmaps.
  for (const Layer& l : layers_) weight_transfer_.push_back(IsPe(l.op) ? next_transfer_++ : -1);
  input_.assign(static_cast<size_t>(cores_), {});
  std::vector<int64_t> next_id(static_cast<size_t>(cores_), 0);
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    layer_begin_.push_back(works_.size());
    for (int p = 0; p < layer.cores; ++p) {
      const Rows rows{layer.height * p / layer.cores, layer.height * (p + 1) / layer.cores - 1};
      works_.push_back({static_cast<int>(l), p, next_id[static_cast<size_t>(p)]++, rows, 0});
    }
  }
  layer_begin_.push_back(works_.size());
  for (int p = 0; p < layers_[0].cores; ++p)
    input_[static_cast<size_t>(p)].push_back(next_transfer_++);
  for (Work& w : works_) w.ofmap_transfer = next_transfer_++;
  // DRAM-queue items: a weight per pe workload, the input blocks of layer 0
  // and the stores of the last layer; core-fed tensors carry their count.
  const int last = static_cast<int>(layers_.size()) - 1;
  for (const Work& w : works_) {
    core_fed_order_ +=
        (IsPe(LayerOf(w).op) ? 1 : 0) + (w.layer == 0 ? 1 : 0) + (w.layer == last ? 1 : 0);
  }
  plans_.resize(static_cast<size_t>(cores_));
  for (const Work& w : works_)
    plans_[static_cast<size_t>(w.core)].works.push_back(&w);  // by layer: in workload order
  for (int p = 0; p < cores_; ++p) {
    CorePlan& plan = plans_[static_cast<size_t>(p)];
    PlanInputs(plan);
    if (auto problem = PlanSnapshots(p, plan)) return problem;
  }
  return std::nullopt;
}

void Scheduler::WriteTile(std::ostream& out, const Work& w, int64_t t, Rows r) const {
  const Layer& l = layers_[static_cast<size_t>(w.layer)];
  const int64_t n1 = o_.batch - 1;
  const Rows in = Needed(l, r);
  const std::string name = Name(w.layer);
  const auto pad = TilePadding(l, r);
  const std::string in_lo = Box(0, 0, in.lo, 0),
                    in_hi = Box(n1, InChannels(l) - 1, in.hi, l.in_width - 1);
  out << (t ? "," : "") << "\"tile_num_" << t << "\":{\"ifmap_lower\":" << in_lo
      << ",\"ifmap_upper\":" << in_hi;
  if (l.op == Op::kAdd) out << ",\"ifmap_lower2\":" << in_lo << ",\"ifmap_upper2\":" << in_hi;
  out << ",\"ofmap_lower\":" << Box(0, 0, r.lo, 0)
      << ",\"ofmap_upper\":" << Box(n1, l.channels - 1, r.hi, l.width - 1)
      << ",\"single_tile_time_pred\":" << 100 << ".5"
      << ",\"tile_padding_tblr\":[" << pad[0] << "," << pad[1] << "," << pad[2] << "," << pad[3]
      << "]";
  if (IsPe(l.op)) {
    // act_mini_tile = (out_mini_tile - 1) * stride + kernel, per row and column.
    out << ",\"act_mini_tile\":" << (l.op == Op::kConv ? "[1,1,4,4]" : "[1,1,2,2]")
        << ",\"out_mini_tile\":[1,8,2,2],\"ci_cut_num\":1,\"cut_mode\":\"KH\",\"layer_name\":\""
        << name << "\",\"loop_order\":\"KNHW\",\"mtc0_mtk0\":[1,1]";
  }
  out << "}";
}

// The consumers of w's output: the workloads of the layers reading w's layer
// whose receptive field meets w's rows; DRAM for the network output.
void Scheduler::WriteDestinations(std::ostream& out, const Work& w) const {
  if (w.layer == static_cast<int>(layers_.size()) - 1) {
    out << "{\"core_id\":-1,\"type\":\"DRAM\"}";
    return;
  }
  bool first = true;
  for (size_t reader = static_cast<size_t>(w.layer) + 1; reader < layers_.size(); ++reader) {
    const Layer& consumer = layers_[reader];
    if (consumer.input != w.layer && consumer.residual != w.layer) continue;
    for (size_t i = layer_begin_[reader]; i < layer_begin_[reader + 1]; ++i) {
      const Work& c = works_[i];
      const Rows cn = Needed(consumer, c.rows);
      if (cn.hi < w.rows.lo || cn.lo > w.rows.hi) continue;
      out << (first ? "" : ",") << "{\"core_id\":" << c.core
          << ",\"type\":\"core\",\"workload_id\":" << c.id << "}";
      first = false;
    }
  }
}

// One entry of w's L2 snapshot. DRAM-queue items take the next tensor_order
// where they enter; core-fed tensors carry the sentinel (I-B9).
void Scheduler::WriteEntry(std::ostream& out, const Work& w, Tensor& t, bool newly_added) {
  const Layer& l = LayerOf(w);
  const int64_t n1 = o_.batch - 1;
  const std::string name = Name(w.layer);
  if (newly_added)
    t.order = (t.kind == Tensor::Kind::kInput && t.source >= 0) ? core_fed_order_ : next_order_++;
  switch (t.kind) {
    case Tensor::Kind::kWeight: {
      const int64_t wt = weight_transfer_[static_cast<size_t>(w.layer)];
      out << "{\"address\":" << t.address << ",\"align\":8,\"bitwidth\":8,\"layer_name\":\"" << name
          << "\",\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << WeightUpper(l)
          << ",\"newly_added\":true,\"size\":" << t.bytes
          << ",\"source\":[{\"core_id\":-1,\"lower\":" << Box(0, 0, 0, 0)
          << ",\"upper\":" << WeightUpper(l) << ",\"size\":" << t.bytes << ",\"transfer_id\":" << wt
          << ",\"type\":\"DRAM\"}],\"tensor_id\":" << t.id << ",\"tensor_order\":" << t.order
          << ",\"transfer_id\":[" << wt << "],\"type\":\"weight\"}";
      return;
    }
    case Tensor::Kind::kStore:
      out << "{\"address\":" << t.address << ",\"align\":8,\"bitwidth\":8,\"layer_name\":\"" << name
          << "\",\"lower\":" << Box(0, 0, 0, 0)
          << ",\"upper\":" << Box(n1, l.channels - 1, w.rows.hi - w.rows.lo, l.width - 1)
          << ",\"size\":" << t.bytes << ",\"start_send\":true,\"tensor_id\":" << t.id
          << ",\"tensor_order\":" << t.order << ",\"type\":\"ofmap\"}";
      return;
    case Tensor::Kind::kInput:
      break;
  }
  const std::vector<int> operands = Operands(l);
  const bool read = std::find(operands.begin(), operands.end(), t.source) != operands.end();
  const int64_t channels =
      t.source < 0 ? o_.channels : layers_[static_cast<size_t>(t.source)].channels;
  const int64_t width = t.source < 0 ? o_.width : layers_[static_cast<size_t>(t.source)].width;
  const int64_t c1 = channels - 1, w1 = width - 1;
  std::string sources, ids;
  if (t.source < 0) {
    const int64_t id = input_[static_cast<size_t>(w.core)][0];
    sources = Str("{\"core_id\":-1,\"lower\":", Box(0, 0, 0, 0),
                  ",\"upper\":", Box(n1, c1, t.rows.hi - t.rows.lo, w1), ",\"size\":", t.bytes,
                  ",\"transfer_id\":", id, ",\"type\":\"DRAM\"}");
    ids = Str(id);
  }
  for (const Work* p : t.producers) {
    sources += Str(sources.empty() ? "" : ",", "{\"core_id\":", p->core, ",\"layer_name\":\"",
                   Name(p->layer), "\",\"lower\":", Box(0, 0, p->rows.lo - t.rows.lo, 0),
                   ",\"upper\":", Box(n1, c1, p->rows.hi - t.rows.lo, w1),
                   ",\"size\":", FmapBytes(channels, p->rows.hi - p->rows.lo + 1, width),
                   ",\"transfer_id\":", p->ofmap_transfer, ",\"type\":\"core\"}");
    ids += Str(ids.empty() ? "" : ",", p->ofmap_transfer);
  }
  out << "{\"address\":" << t.address << ",\"align\":8,\"bitwidth\":8,"
      << (read ? "\"cur_wl_ifmap\":true," : "") << "\"lower\":" << Box(0, 0, 0, 0)
      << ",\"upper\":" << Box(n1, c1, t.rows.hi - t.rows.lo, w1)
      << ",\"newly_added\":" << (newly_added ? "true" : "false") << ",\"size\":" << t.bytes
      << ",\"source\":[" << sources << "],\"tensor_id\":" << t.id << ",\"tensor_order\":" << t.order
      << ",\"transfer_id\":[" << ids << "],\"type\":\"ifmap\"}";
}

void Scheduler::WriteWorkload(std::ostream& out, CorePlan& plan, size_t position) {
  const Work& w = *plan.works[position];
  const Layer& l = LayerOf(w);
  const int64_t c1 = l.channels - 1, n1 = o_.batch - 1, w1 = l.width - 1;
  const int64_t in_c1 = InChannels(l) - 1, in_w1 = l.in_width - 1;
  const int64_t rows = w.rows.hi - w.rows.lo + 1;
  const std::string name = Name(w.layer);
  const bool pe = IsPe(l.op);
  const int64_t wt = weight_transfer_[static_cast<size_t>(w.layer)];
  const int64_t tiles = std::min<int64_t>(o_.tiles, rows);
  out << "{\"workload_id\":" << w.id << ",\"layer_name\":\"" << name << "\",\"layer_type\":\""
      << (pe ? "pe" : "vp") << "\",\"workload\":[" << Box(0, 0, w.rows.lo, 0) << ","
      << Box(n1, c1, w.rows.hi, w1) << "],\"ofmap_size\":" << OutBytes(l, rows)
      << ",\"time\":" << 100 * tiles
      << ",\"tile_padding_tblr\":" << (IsWindow3x3(l.op) ? "[1,1,1,1]" : "[0,0,0,0]")
      << ",\"ring_buffer_info\":[[0," << o_.buffer << "]],\"tile_info\":{";
  for (int64_t t = 0; t < tiles; ++t)
    WriteTile(out, w, t, {w.rows.lo + rows * t / tiles, w.rows.lo + rows * (t + 1) / tiles - 1});
  out << "}";
  // Inputs: the window each operand needs inside the merged tensor holding it
  // (§2.3), read from the producers whose rows it meets.
  const std::vector<size_t>& snapshot = plan.snapshots[position];
  const Rows need = Needed(l, w.rows);
  out << ",\"ifmap\":[";
  const std::vector<int> operands = Operands(l);
  for (size_t j = 0; j < operands.size(); ++j) {
    const auto holder = std::find_if(snapshot.begin(), snapshot.end(), [&](size_t t) {
      return plan.tensors[t].kind == Tensor::Kind::kInput && plan.tensors[t].source == operands[j];
    });
    const Tensor& t = plan.tensors[*holder];
    std::string ids;
    if (operands[j] < 0) {
      ids = Str(input_[static_cast<size_t>(w.core)][0]);
    } else {
      for (const Work* p : Producers(operands[j], need))
        ids += Str(ids.empty() ? "" : ",", p->ofmap_transfer);
    }
    out << (j ? "," : "")
        << "{\"align\":8,\"bitwidth\":8,\"lower\":" << Box(0, 0, need.lo - t.rows.lo, 0)
        << ",\"upper\":" << Box(n1, in_c1, need.hi - t.rows.lo, in_w1)
        << ",\"size\":" << InBytes(l, need.hi - need.lo + 1) << ",\"transfer_id\":[" << ids << "]}";
  }
  out << "]";
  out << ",\"ofmap\":[{\"destination\":[";
  WriteDestinations(out, w);
  out << "],\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << Box(n1, c1, rows - 1, w1)
      << ",\"size\":" << OutBytes(l, rows) << ",\"transfer_id\":" << w.ofmap_transfer << "}]";
  if (pe) {
    out << ",\"weight\":{\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << WeightUpper(l)
        << ",\"size\":" << WeightBytes(l) << ",\"transfer_id\":[" << wt << "]}";
  }
  out << ",\"buffer\":[";
  for (size_t e = 0; e < snapshot.size(); ++e) {
    Tensor& t = plan.tensors[snapshot[e]];
    if (e) out << ",";
    WriteEntry(out, w, t, t.first == position);
  }
  out << "],\"wl0_buffer\":";
  if (pe) {
    out << "[{\"address\":0,\"align\":8,\"bitwidth\":8,\"layer_name\":\"" << name
        << "\",\"size\":" << WeightBytes(l)
        << ",\"source\":\"CORE\",\"tensor_order\":null,\"transfer_id\":[" << wt << "]}]}";
  } else {
    out << "null}";
  }
}

void Scheduler::WriteIr(std::ostream& out) {
  const int64_t n1 = o_.batch - 1;
  const int last = static_cast<int>(layers_.size()) - 1;
  // Keys in jsoncpp's order: "-1" first.
  out << "{\"-1\":{\"in\":[";
  bool first = true;
  for (const Work& w : works_) {
    if (w.layer != last) continue;
    const Layer& l = layers_[static_cast<size_t>(w.layer)];
    out << (first ? "" : ",") << "{\"core_id\":" << w.core << ",\"workload_id\":" << w.id
        << ",\"layer_name\":\"" << Name(w.layer) << "\",\"lower\":" << Box(0, 0, w.rows.lo, 0)
        << ",\"upper\":" << Box(n1, l.channels - 1, w.rows.hi, l.width - 1)
        << ",\"transfer_id\":" << w.ofmap_transfer << "}";
    first = false;
  }
  out << "],\"out\":[";
  first = true;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& l = layers_[i];
    if (!IsPe(l.op)) continue;
    out << (first ? "" : ",") << "{\"transfer_id\":" << weight_transfer_[i]
        << ",\"type\":\"weight\",\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << WeightUpper(l)
        << ",\"size\":" << WeightBytes(l) << ",\"related_ifmap\":[],\"destination\":[";
    first = false;
    bool first_destination = true;
    for (const Work& w : works_) {
      if (w.layer != static_cast<int>(i)) continue;
      out << (first_destination ? "" : ",") << "{\"core_id\":" << w.core << ",\"layer_name\":\""
          << Name(w.layer) << "\",\"type\":\"core\",\"workload_id\":" << w.id << "}";
      first_destination = false;
    }
    out << "]}";
  }
  const Layer& l0 = layers_[0];
  for (const Work& w : works_) {
    if (w.layer != 0) continue;
    const Rows need = Needed(l0, w.rows);
    out << (first ? "" : ",") << "{\"transfer_id\":" << input_[static_cast<size_t>(w.core)][0]
        << ",\"type\":\"fmap\",\"lower\":" << Box(0, 0, need.lo, 0)
        << ",\"upper\":" << Box(n1, o_.channels - 1, need.hi, l0.in_width - 1)
        << ",\"size\":" << InBytes(l0, need.hi - need.lo + 1)
        << ",\"related_ifmap\":[],\"destination\":[{\"core_id\":" << w.core << ",\"layer_name\":\""
        << Name(0) << "\",\"type\":\"core\",\"workload_id\":" << w.id << "}]}";
    first = false;
  }
  out << "]}";
  for (int p = 0; p < cores_; ++p) {
    out << ",\"" << p << "\":[";
    CorePlan& plan = plans_[static_cast<size_t>(p)];
    for (size_t i = 0; i < plan.works.size(); ++i) {
      if (i) out << ",";
      WriteWorkload(out, plan, i);
    }
    out << "]";
  }
  out << ",\"buffersize\":" << o_.buffer << ",\"top_batch_cut\":1,\"xlen\":" << o_.mesh_x
      << ",\"ylen\":" << o_.mesh_y << "}\n";
}

void Scheduler::WriteFrontend(std::ostream& out) const {
  const auto shape = [&](int64_t c, int64_t h, int64_t w) {
    return Str("[", o_.batch, ",", c, ",", h, ",", w, "]");
  };
  // next_layer mirrors previous_layer; the last layer feeds the network output.
  std::vector<std::string> next(layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) {
    for (const int operand : Operands(layers_[i])) {
      if (operand < 0) continue;
      std::string& list = next[static_cast<size_t>(operand)];
      const std::string name = Str("\"", Name(static_cast<int>(i)), "\"");
      if (list.find(name) == std::string::npos) list += (list.empty() ? "" : ",") + name;
    }
  }
  out << "{";
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& l = layers_[i];
    const int index = static_cast<int>(i);
    const std::string in = shape(InChannels(l), l.in_height, l.in_width);
    const std::string output =
        Str("],\"output_shape\":[", shape(l.channels, l.height, l.width), "]");
    const std::string previous = l.input < 0 ? std::string("input1") : Name(l.input);
    const std::string links =
        Str(",\"next_layer\":[", next[i].empty() ? std::string("\"output1\"") : next[i], "]}");
    out << (i ? "," : "") << "\"" << Name(index) << "\":{\"layer_index\":" << index
        << ",\"name\":\"" << Name(index) << "\",";
    switch (l.op) {
      case Op::kConv:
        out << "\"operation\":\"conv2d\",\"input_shape\":[" << in << ",[" << l.channels << ","
            << InChannels(l) << ",3,3]" << output
            << ",\"kernel_size\":[3,3],\"stride\":[1,1],\"padding\":[1,1,1,1],\"previous_layer\":["
               "\""
            << previous << "\",\"constant_" << index << "\"]" << links;
        break;
      case Op::kMaxPool:
      case Op::kAvgPool:
        out << "\"operation\":\"" << (l.op == Op::kMaxPool ? "max_pool2d" : "avg_pool2d")
            << "\",\"input_shape\":[" << in << output
            << ",\"pool_size\":[3,3],\"stride\":[1,1],\"padding\":[1,1,1,1],\"previous_layer\":[\""
            << previous << "\"]" << links;
        break;
      case Op::kAdd:
        out << "\"operation\":\"element_wise_add\",\"input_shape\":[" << in << "," << in << output
            << ",\"previous_layer\":[\"" << previous << "\",\"" << Name(l.residual) << "\"]"
            << links;
        break;
      case Op::kGap:
        out << "\"operation\":\"avg_pool2d\",\"input_shape\":[" << in << output
            << ",\"pool_size\":[" << l.in_height << "," << l.in_width
            << "],\"stride\":[1,1],\"padding\":[0,0,0,0],\"previous_layer\":[\"" << previous
            << "\"]" << links;
        break;
      case Op::kDense:
        out << "\"operation\":\"dense\",\"input_shape\":[" << in << ",[" << l.channels << ","
            << InChannels(l) << ",1,1]" << output << ",\"previous_layer\":[\"" << previous
            << "\",\"constant_" << index << "\"]" << links;
        break;
    }
  }
  out << "}\n";
}

}  // namespace

std::optional<std::vector<LayerKind>> ParseLayers(std::string_view text, std::string* error) {
  std::vector<LayerKind> kinds;
  if (!text.empty() &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (text.size() > 6) {
      *error = "at most 999999 layers";
      return std::nullopt;
    }
    kinds.assign(static_cast<size_t>(std::stoi(std::string(text))), LayerKind::kConv);
  } else {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      const std::string_view word = text.substr(start, comma - start);
      if (word == "conv")
        kinds.push_back(LayerKind::kConv);
      else if (word == "pool" || word == "maxpool")
        kinds.push_back(LayerKind::kMaxPool);
      else if (word == "avgpool")
        kinds.push_back(LayerKind::kAvgPool);
      else if (word == "add")
        kinds.push_back(LayerKind::kAdd);
      else if (word == "fc")
        kinds.push_back(LayerKind::kFc);
      else {
        *error =
            Str("unknown layer kind ", Quoted(word), " (conv, pool, maxpool, avgpool, add, fc)");
        return std::nullopt;
      }
      start = comma + 1;
    }
  }
  if (kinds.empty()) {
    *error = "the network needs at least one layer";
    return std::nullopt;
  }
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] == LayerKind::kAdd && (i < 2 || kinds[i - 2] == LayerKind::kFc)) {
      *error = Str("layer ", i, ": an add needs two layers before it");
      return std::nullopt;
    }
    if (kinds[i] == LayerKind::kFc && i + 1 != kinds.size()) {
      *error = Str("layer ", i, ": fc must be the last layer");
      return std::nullopt;
    }
  }
  return kinds;
}

GenerateOptions RandomizeOptions(const GenerateOptions& bounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  GenerateOptions o = bounds;
  const auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  o.layers = static_cast<int>(pick(1, std::max(1, bounds.layers)));
  o.batch = pick(1, std::max<int64_t>(1, bounds.batch));
  o.channels = pick(1, std::max<int64_t>(1, bounds.channels));
  o.height = pick(bounds.mesh_x * bounds.mesh_y,
                  std::max<int64_t>(bounds.mesh_x * bounds.mesh_y, bounds.height));
  o.width = pick(1, std::max<int64_t>(1, bounds.width));
  o.tiles = static_cast<int>(pick(1, std::max(1, bounds.tiles)));
  o.seed = seed;
  if (bounds.mixed) {
    // Convolutions twice as often as each other kind; fc only last.
    o.kinds.clear();
    for (int i = 0; i < o.layers; ++i) {
      const int64_t choice = pick(0, i >= 2 ? 5 : 4);
      static constexpr LayerKind kChoices[] = {LayerKind::kConv,    LayerKind::kConv,
                                               LayerKind::kMaxPool, LayerKind::kAvgPool,
                                               LayerKind::kFc,      LayerKind::kAdd};
      LayerKind kind = kChoices[choice];
      if (kind == LayerKind::kFc && i + 1 != o.layers) kind = LayerKind::kConv;
      o.kinds.push_back(kind);
    }
  }
  return o;
}

std::optional<std::string> GenerateIr(const GenerateOptions& options, std::ostream& ir,
                                      std::ostream& frontend) {
  Scheduler scheduler(options);
  if (auto error = scheduler.Plan()) return error;
  scheduler.WriteIr(ir);
  scheduler.WriteFrontend(frontend);
  return std::nullopt;
}

void GenerateFrontend(const GenerateOptions& options, std::ostream& frontend) {
  Scheduler scheduler(options);
  scheduler.BuildLayers();
  scheduler.WriteFrontend(frontend);
}

std::string ConvolutionName(int layer) { return NameOf(Op::kConv, layer); }

}  // namespace accelcheck::gemini
