#include "conformance/gemini/generate.h"

#include <algorithm>
#include <random>
#include <vector>

#include "validators/core/text.h"

namespace accelcheck::gemini {

namespace {

int64_t Align8(int64_t v) { return (v + 7) / 8 * 8; }

struct Rows {
  int64_t lo, hi;  // inclusive
};

// One workload: layer l on core p.
struct Work {
  int layer;
  int core;
  int64_t id;  // workload_id on its core
  Rows rows;
  int64_t ofmap_transfer;
};

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}
  Writer& operator<<(const std::string& s) {
    out_ << s;
    return *this;
  }
  Writer& operator<<(int64_t v) {
    out_ << v;
    return *this;
  }

 private:
  std::ostream& out_;
};

std::string Box(int64_t n, int64_t c, int64_t h, int64_t w) { return Str("[", n, ",", c, ",", h, ",", w, "]"); }

class Scheduler {
 public:
  explicit Scheduler(const GenerateOptions& o) : o_(o), cores_(o.mesh_x * o.mesh_y) {}
  std::optional<std::string> Plan();
  void WriteIr(std::ostream& out);
  void WriteFrontend(std::ostream& out) const;

 private:
  int64_t FmapBytes(int64_t rows) const { return o_.batch * Align8(o_.channels) * rows * o_.width; }
  int64_t WeightBytes() const { return o_.channels * Align8(o_.channels) * 9 + 32 * o_.channels; }
  // The input rows an output row range needs (3x3, stride 1, padding 1).
  Rows Needed(Rows out) const { return {std::max<int64_t>(out.lo - 1, 0), std::min(out.hi + 1, o_.height - 1)}; }
  // The producers (previous layer's workloads) whose rows meet `need`.
  std::vector<const Work*> Producers(int layer, Rows need) const;
  std::string Name(int layer) const { return Str("conv_", layer); }
  void WriteWorkload(std::ostream& out, const Work& w);

  GenerateOptions o_;
  int cores_;
  std::vector<Work> works_;                   // by layer, then core
  std::vector<std::vector<int64_t>> input_;   // DRAM out id of each layer-0 workload's input
  std::vector<int64_t> weight_transfer_;      // per layer
  int64_t next_transfer_ = 0;
  std::vector<int64_t> next_tensor_;          // per core
  int64_t next_order_ = 0;
  int64_t core_fed_order_ = 0;                // the sentinel: the number of DRAM-queue items
};

std::vector<const Work*> Scheduler::Producers(int layer, Rows need) const {
  std::vector<const Work*> out;
  for (const Work& w : works_) {
    if (w.layer == layer - 1 && w.rows.hi >= need.lo && w.rows.lo <= need.hi) out.push_back(&w);
  }
  return out;
}

std::optional<std::string> Scheduler::Plan() {
  if (o_.layers < 1 || o_.batch < 1 || o_.channels < 1 || o_.width < 1 || o_.tiles < 1 || cores_ < 1) {
    return "layers, batch, channels, width, tiles and the mesh must be at least 1";
  }
  if (o_.height < cores_) return Str("height ", o_.height, " gives fewer rows than the ", cores_, " cores");
  next_tensor_.assign(static_cast<size_t>(cores_), 0);
  // Transfer ids: weights first, then the network input blocks, then ofmaps.
  for (int l = 0; l < o_.layers; ++l) weight_transfer_.push_back(next_transfer_++);
  input_.assign(static_cast<size_t>(cores_), {});
  for (int l = 0; l < o_.layers; ++l) {
    for (int p = 0; p < cores_; ++p) {
      const Rows rows{o_.height * p / cores_, o_.height * (p + 1) / cores_ - 1};
      works_.push_back({l, p, l, rows, 0});
    }
  }
  for (int p = 0; p < cores_; ++p) input_[static_cast<size_t>(p)].push_back(next_transfer_++);
  for (Work& w : works_) w.ofmap_transfer = next_transfer_++;
  // DRAM-queue items: a weight per workload, the input blocks of layer 0 and
  // the stores of the last layer; core-fed tensors carry their count.
  core_fed_order_ = static_cast<int64_t>(cores_) * (o_.layers + 2);
  // Every snapshot (weight, merged input, store) must fit the buffer.
  for (const Work& w : works_) {
    Rows tensor_rows = Needed(w.rows);
    if (w.layer > 0) {
      const auto producers = Producers(w.layer, tensor_rows);
      tensor_rows = {producers.front()->rows.lo, producers.back()->rows.hi};
    }
    const bool last = w.layer == o_.layers - 1;
    const int64_t need = Align8(WeightBytes()) + FmapBytes(tensor_rows.hi - tensor_rows.lo + 1) +
                         (last ? FmapBytes(w.rows.hi - w.rows.lo + 1) : 0);
    if (need > o_.buffer) return Str("a snapshot needs ", need, " bytes but the buffer has ", o_.buffer);
  }
  return std::nullopt;
}

void Scheduler::WriteWorkload(std::ostream& out, const Work& w) {
  const int64_t c1 = o_.channels - 1, n1 = o_.batch - 1, w1 = o_.width - 1;
  const int64_t rows = w.rows.hi - w.rows.lo + 1;
  const std::string name = Name(w.layer);
  const bool last = w.layer == o_.layers - 1;
  out << "{\"workload_id\":" << w.id << ",\"layer_name\":\"" << name << "\",\"layer_type\":\"pe\",\"workload\":["
      << Box(0, 0, w.rows.lo, 0) << "," << Box(n1, c1, w.rows.hi, w1) << "],\"ofmap_size\":" << FmapBytes(rows)
      << ",\"time\":" << 100 * std::min<int64_t>(o_.tiles, rows) << ",\"tile_padding_tblr\":[1,1,1,1]"
      << ",\"ring_buffer_info\":[[0," << o_.buffer << "]],\"tile_info\":{";
  const int64_t tiles = std::min<int64_t>(o_.tiles, rows);
  for (int64_t t = 0; t < tiles; ++t) {
    const Rows r{w.rows.lo + rows * t / tiles, w.rows.lo + rows * (t + 1) / tiles - 1};
    const Rows in = Needed(r);
    out << (t ? "," : "") << "\"tile_num_" << t << "\":{\"ifmap_lower\":" << Box(0, 0, in.lo, 0)
        << ",\"ifmap_upper\":" << Box(n1, c1, in.hi, w1) << ",\"ofmap_lower\":" << Box(0, 0, r.lo, 0)
        << ",\"ofmap_upper\":" << Box(n1, c1, r.hi, w1) << ",\"single_tile_time_pred\":" << 100 << ".5"
        << ",\"tile_padding_tblr\":[" << (r.lo == 0 ? 1 : 0) << "," << (r.hi == o_.height - 1 ? 1 : 0) << ",1,1]"
        << ",\"act_mini_tile\":[1,1,4,4],\"out_mini_tile\":[1,8,2,2],\"ci_cut_num\":1,\"cut_mode\":\"KH\",\"layer_name\":\""
        << name << "\",\"loop_order\":\"KNHW\",\"mtc0_mtk0\":[1,1]}";
  }
  out << "}";
  // Inputs: one merged tensor.
  const Rows need = Needed(w.rows);
  std::vector<int64_t> ids;
  Rows tensor_rows = need;
  std::string sources;
  if (w.layer == 0) {
    ids.push_back(input_[static_cast<size_t>(w.core)][0]);
    sources = Str("{\"core_id\":-1,\"lower\":", Box(0, 0, 0, 0), ",\"upper\":", Box(n1, c1, need.hi - need.lo, w1),
                  ",\"size\":", FmapBytes(need.hi - need.lo + 1), ",\"transfer_id\":", ids[0], ",\"type\":\"DRAM\"}");
  } else {
    const auto producers = Producers(w.layer, need);
    tensor_rows = {producers.front()->rows.lo, producers.back()->rows.hi};
    for (const Work* p : producers) {
      ids.push_back(p->ofmap_transfer);
      const int64_t prow = p->rows.hi - p->rows.lo + 1;
      sources += Str(sources.empty() ? "" : ",", "{\"core_id\":", p->core, ",\"layer_name\":\"", Name(p->layer),
                     "\",\"lower\":", Box(0, 0, p->rows.lo - tensor_rows.lo, 0), ",\"upper\":",
                     Box(n1, c1, p->rows.hi - tensor_rows.lo, w1), ",\"size\":", FmapBytes(prow), ",\"transfer_id\":",
                     p->ofmap_transfer, ",\"type\":\"core\"}");
    }
  }
  std::string id_list;
  for (int64_t id : ids) id_list += Str(id_list.empty() ? "" : ",", id);
  const int64_t window_lo = need.lo - tensor_rows.lo, window_hi = need.hi - tensor_rows.lo;
  out << ",\"ifmap\":[{\"align\":8,\"bitwidth\":8,\"lower\":" << Box(0, 0, window_lo, 0)
      << ",\"upper\":" << Box(n1, c1, window_hi, w1) << ",\"size\":" << FmapBytes(need.hi - need.lo + 1)
      << ",\"transfer_id\":[" << id_list << "]}]";
  // Output: to the next layer's workloads that need it, or to DRAM.
  out << ",\"ofmap\":[{\"destination\":[";
  if (last) {
    out << "{\"core_id\":-1,\"type\":\"DRAM\"}";
  } else {
    bool first = true;
    for (const Work& c : works_) {
      if (c.layer != w.layer + 1) continue;
      const Rows cn = Needed(c.rows);
      if (cn.hi < w.rows.lo || cn.lo > w.rows.hi) continue;
      out << (first ? "" : ",") << "{\"core_id\":" << c.core << ",\"type\":\"core\",\"workload_id\":" << c.id << "}";
      first = false;
    }
  }
  out << "],\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << Box(n1, c1, rows - 1, w1) << ",\"size\":" << FmapBytes(rows)
      << ",\"transfer_id\":" << w.ofmap_transfer << "}]";
  out << ",\"weight\":{\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << Box(0, c1, c1, 8) << ",\"size\":" << WeightBytes()
      << ",\"transfer_id\":[" << weight_transfer_[static_cast<size_t>(w.layer)] << "]}";
  // The L2 snapshot: weight, input, and the store of a last-layer output.
  int64_t& tensor = next_tensor_[static_cast<size_t>(w.core)];
  const int64_t input_address = Align8(WeightBytes());
  const int64_t input_bytes = FmapBytes(tensor_rows.hi - tensor_rows.lo + 1);
  out << ",\"buffer\":[{\"address\":0,\"align\":8,\"bitwidth\":8,\"layer_name\":\"" << name << "\",\"lower\":"
      << Box(0, 0, 0, 0) << ",\"upper\":" << Box(0, c1, c1, 8) << ",\"newly_added\":true,\"size\":" << WeightBytes()
      << ",\"source\":[{\"core_id\":-1,\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << Box(0, c1, c1, 8)
      << ",\"size\":" << WeightBytes() << ",\"transfer_id\":" << weight_transfer_[static_cast<size_t>(w.layer)]
      << ",\"type\":\"DRAM\"}],\"tensor_id\":" << tensor++ << ",\"tensor_order\":" << next_order_++
      << ",\"transfer_id\":[" << weight_transfer_[static_cast<size_t>(w.layer)] << "],\"type\":\"weight\"}";
  out << ",{\"address\":" << input_address << ",\"align\":8,\"bitwidth\":8,\"cur_wl_ifmap\":true,\"lower\":" << Box(0, 0, 0, 0)
      << ",\"upper\":" << Box(n1, c1, tensor_rows.hi - tensor_rows.lo, w1) << ",\"newly_added\":true,\"size\":" << input_bytes
      << ",\"source\":[" << sources << "],\"tensor_id\":" << tensor++ << ",\"tensor_order\":"
      << (w.layer == 0 ? next_order_++ : core_fed_order_) << ",\"transfer_id\":[" << id_list << "],\"type\":\"ifmap\"}";
  if (last) {
    out << ",{\"address\":" << input_address + input_bytes << ",\"align\":8,\"bitwidth\":8,\"layer_name\":\"" << name
        << "\",\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << Box(n1, c1, rows - 1, w1) << ",\"size\":" << FmapBytes(rows)
        << ",\"start_send\":true,\"tensor_id\":" << tensor++ << ",\"tensor_order\":" << next_order_++
        << ",\"type\":\"ofmap\"}";
  }
  out << "],\"wl0_buffer\":[{\"address\":0,\"align\":8,\"bitwidth\":8,\"layer_name\":\"" << name << "\",\"size\":"
      << WeightBytes() << ",\"source\":\"CORE\",\"tensor_order\":null,\"transfer_id\":["
      << weight_transfer_[static_cast<size_t>(w.layer)] << "]}]}";
}

void Scheduler::WriteIr(std::ostream& out) {
  const int64_t c1 = o_.channels - 1, n1 = o_.batch - 1, w1 = o_.width - 1;
  // Keys in jsoncpp's order: "-1" first.
  out << "{\"-1\":{\"in\":[";
  bool first = true;
  for (const Work& w : works_) {
    if (w.layer != o_.layers - 1) continue;
    out << (first ? "" : ",") << "{\"core_id\":" << w.core << ",\"workload_id\":" << w.id << ",\"layer_name\":\""
        << Name(w.layer) << "\",\"lower\":" << Box(0, 0, w.rows.lo, 0) << ",\"upper\":" << Box(n1, c1, w.rows.hi, w1)
        << ",\"transfer_id\":" << w.ofmap_transfer << "}";
    first = false;
  }
  out << "],\"out\":[";
  first = true;
  for (int l = 0; l < o_.layers; ++l) {
    out << (first ? "" : ",") << "{\"transfer_id\":" << weight_transfer_[static_cast<size_t>(l)]
        << ",\"type\":\"weight\",\"lower\":" << Box(0, 0, 0, 0) << ",\"upper\":" << Box(0, c1, c1, 8)
        << ",\"size\":" << WeightBytes() << ",\"related_ifmap\":[],\"destination\":[";
    first = false;
    for (int p = 0; p < cores_; ++p) {
      out << (p ? "," : "") << "{\"core_id\":" << p << ",\"layer_name\":\"" << Name(l) << "\",\"type\":\"core\",\"workload_id\":" << l << "}";
    }
    out << "]}";
  }
  for (const Work& w : works_) {
    if (w.layer != 0) continue;
    const Rows need = Needed(w.rows);
    out << ",{\"transfer_id\":" << input_[static_cast<size_t>(w.core)][0] << ",\"type\":\"fmap\",\"lower\":"
        << Box(0, 0, need.lo, 0) << ",\"upper\":" << Box(n1, c1, need.hi, w1) << ",\"size\":" << FmapBytes(need.hi - need.lo + 1)
        << ",\"related_ifmap\":[],\"destination\":[{\"core_id\":" << w.core << ",\"layer_name\":\"" << Name(0)
        << "\",\"type\":\"core\",\"workload_id\":0}]}";
  }
  out << "]}";
  for (int p = 0; p < cores_; ++p) {
    out << ",\"" << p << "\":[";
    for (int l = 0; l < o_.layers; ++l) {
      if (l) out << ",";
      WriteWorkload(out, works_[static_cast<size_t>(l * cores_ + p)]);
    }
    out << "]";
  }
  out << ",\"buffersize\":" << o_.buffer << ",\"top_batch_cut\":1,\"xlen\":" << o_.mesh_x << ",\"ylen\":" << o_.mesh_y << "}\n";
}

void Scheduler::WriteFrontend(std::ostream& out) const {
  const std::string shape = Str("[", o_.batch, ",", o_.channels, ",", o_.height, ",", o_.width, "]");
  out << "{";
  for (int l = 0; l < o_.layers; ++l) {
    out << (l ? "," : "") << "\"" << Name(l) << "\":{\"layer_index\":" << l << ",\"name\":\"" << Name(l)
        << "\",\"operation\":\"conv2d\",\"input_shape\":[" << shape << ",[" << o_.channels << "," << o_.channels
        << ",3,3]],\"output_shape\":[" << shape << "],\"kernel_size\":[3,3],\"stride\":[1,1],\"padding\":[1,1,1,1]"
        << ",\"previous_layer\":[\"" << (l == 0 ? std::string("input1") : Name(l - 1)) << "\",\"constant_" << l << "\"]}";
  }
  out << "}\n";
}

}  // namespace

GenerateOptions RandomizeOptions(const GenerateOptions& bounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  GenerateOptions o = bounds;
  const auto pick = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)); };
  o.layers = static_cast<int>(pick(1, std::max(1, bounds.layers)));
  o.batch = pick(1, std::max<int64_t>(1, bounds.batch));
  o.channels = pick(1, std::max<int64_t>(1, bounds.channels));
  o.height = pick(bounds.mesh_x * bounds.mesh_y, std::max<int64_t>(bounds.mesh_x * bounds.mesh_y, bounds.height));
  o.width = pick(1, std::max<int64_t>(1, bounds.width));
  o.tiles = static_cast<int>(pick(1, std::max(1, bounds.tiles)));
  o.seed = seed;
  return o;
}

std::optional<std::string> GenerateIr(const GenerateOptions& options, std::ostream& ir, std::ostream& frontend) {
  Scheduler scheduler(options);
  if (auto error = scheduler.Plan()) return error;
  scheduler.WriteIr(ir);
  scheduler.WriteFrontend(frontend);
  return std::nullopt;
}

}  // namespace accelcheck::gemini
