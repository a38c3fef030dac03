// The picture `simulate --svg` writes (simulate.h): a Gantt chart of the cores
// and the DRAM channel over a time axis, a legend, one L2 occupancy plot per
// core, and the deadlock when the cores stop with work left. Its parts are
// groups with ids ("gantt", "time-axis", "legend", "l2", "deadlock") and
// classes ("l2-scale", "blocked", "wait") that tests and style sheets find.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>

#include "reference_exec/gemini/simulate.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::gemini {

namespace {

constexpr double kWidth = 1200;
constexpr double kLeft = 130;  // the column of row labels and scales
constexpr double kRight = 20;
constexpr double kRow = 26;
constexpr double kPlot = 90;  // the height of one L2 plot
constexpr double kLegendItem = 190;
constexpr double kLegendRow = 16;
constexpr size_t kMostLayers = 120;        // layers in the legend
constexpr size_t kMostArrows = 32;         // wait-for arrows drawn
constexpr size_t kMostCycleInCaption = 8;  // workloads named in the caption
constexpr const char* kBlockedColour = "#c00";

// Coordinates with two decimals at most.
std::string Num(double value) { return Str(std::round(value * 100) / 100); }

std::string Text(std::string_view text) { return XmlEscape(text, false); }

// The smallest of 1, 2 and 5 times a power of ten that is at least `value`:
// the steps of the axes.
uint64_t NiceCeil(uint64_t value) {
  for (uint64_t power = 1;; power *= 10) {
    for (const uint64_t m : {1, 2, 5}) {
      if (m * power >= value) return m * power;
    }
    if (power > UINT64_MAX / 10) return UINT64_MAX;
  }
}

// "0", "750", "2.5k", "1.25M": axis labels of round numbers.
std::string ShortCount(uint64_t value) {
  static constexpr std::pair<uint64_t, const char*> kUnits[] = {{1000000000000000, "P"},
                                                                {1000000000000, "T"},
                                                                {1000000000, "G"},
                                                                {1000000, "M"},
                                                                {1000, "k"}};
  for (const auto& [unit, suffix] : kUnits) {
    if (value < unit) continue;
    std::string fraction;
    uint64_t rest = value % unit;
    for (uint64_t digit = unit / 10; digit > 0 && rest > 0 && fraction.size() < 2; digit /= 10) {
      fraction += static_cast<char>('0' + rest / digit);
      rest %= digit;
    }
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    return Str(value / unit, fraction.empty() ? "" : ".", fraction, suffix);
  }
  return Str(value);
}

// A stable colour per layer, so that a layer's workloads read as one band.
std::string LayerColour(uint32_t layer) {
  return Str("hsl(", (layer * 47) % 360, ",55%,", 55 + (layer % 3) * 8, "%)");
}

std::string Shortened(const std::string& name, size_t most) {
  return name.size() <= most ? name : name.substr(0, most - 3) + "...";
}

// Where things are drawn: the time scale shared by every part, and the rows.
class Chart {
 public:
  Chart(const Ir& ir, const Simulation& sim) : ir_(ir), sim_(sim) {
    // A deadlocked schedule gets room after its last event for the cores'
    // blocked bars and the arrows between them.
    end_ = std::max<uint64_t>(sim.total_cycles, 1);
    if (sim.deadlock) end_ += std::max<uint64_t>(end_ / 3, 1);
    tick_ = NiceCeil(end_ / 8 + 1);
  }

  std::string Draw();

 private:
  double X(uint64_t t) const {
    return kLeft + (kWidth - kLeft - kRight) * static_cast<double>(t) / static_cast<double>(end_);
  }
  double RowTop(size_t row) const { return gantt_top_ + kRow * static_cast<double>(row); }
  // The row of the first core with this id.
  std::optional<size_t> RowOf(int64_t core_id) const;
  // Where core `c` stopped: the end of its last workload.
  uint64_t StopOf(size_t c) const {
    const auto& spans = sim_.cores[c].workloads;
    return spans.empty() ? 0 : spans.back().end;
  }
  std::vector<uint64_t> Ticks() const;

  void Defs();
  void Title();
  void Gantt();
  void TimeAxis(double y);
  double Legend(double top);
  void Occupancy(double top);
  void OccupancyPlot(size_t c, double top, uint64_t scale);
  void Deadlock();
  void WaitArrows();

  const Ir& ir_;
  const Simulation& sim_;
  uint64_t end_ = 1;
  uint64_t tick_ = 1;
  double gantt_top_ = 30;
  std::string svg_;
};

std::optional<size_t> Chart::RowOf(int64_t core_id) const {
  for (size_t c = 0; c < sim_.cores.size(); ++c) {
    if (sim_.cores[c].core_id == core_id) return c;
  }
  return std::nullopt;
}

// 0, tick_, 2 tick_, ... up to the end: about eight.
std::vector<uint64_t> Chart::Ticks() const {
  std::vector<uint64_t> ticks;
  for (uint64_t t = 0;; t += tick_) {
    ticks.push_back(t);
    if (end_ - t < tick_) return ticks;
  }
}

void Chart::Defs() {
  svg_ +=
      Str("<defs>\n"
          "<pattern id=\"blocked-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fde2e2\"/>"
          "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"",
          kBlockedColour,
          "\" stroke-width=\"2\"/></pattern>\n"
          "<marker id=\"wait-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
          "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"",
          kBlockedColour, "\"/></marker>\n</defs>\n");
}

void Chart::Title() {
  svg_ += Str("<text x=\"4\" y=\"16\" font-size=\"13\">Schedule: ", sim_.total_cycles, " cycles",
              sim_.deadlock ? " (deadlock)" : "", "</text>\n");
}

void Chart::Gantt() {
  svg_ += "<g id=\"gantt\">\n";
  for (size_t c = 0; c < sim_.cores.size(); ++c) {
    const double y = RowTop(c);
    svg_ += Str("<text x=\"4\" y=\"", Num(y + 15), "\">core ", sim_.cores[c].core_id, "</text>\n");
    for (const WorkloadSpan& w : sim_.cores[c].workloads) {
      svg_ +=
          Str("<rect class=\"workload\" x=\"", Num(X(w.start)), "\" y=\"", Num(y + 2),
              "\" width=\"", Num(std::max(0.5, X(w.end) - X(w.start))), "\" height=\"", kRow - 6,
              "\" fill=\"", LayerColour(w.layer), "\" stroke=\"#333\" stroke-width=\"0.3\"><title>",
              Text(Str("workload ", w.workload_id, " ", ir_.LayerName(w.layer), ": ", w.start, "..",
                       w.end)),
              "</title></rect>\n");
    }
  }
  const double dram_y = RowTop(sim_.cores.size());
  svg_ += Str("<text x=\"4\" y=\"", Num(dram_y + 15), "\">DRAM</text>\n");
  for (const DramSpan& d : sim_.dram) {
    svg_ +=
        Str("<rect class=\"", d.store ? "store" : "load", "\" x=\"", Num(X(d.start)), "\" y=\"",
            Num(dram_y + 2), "\" width=\"", Num(std::max(0.5, X(d.end) - X(d.start))),
            "\" height=\"", kRow - 6, "\" fill=\"", d.store ? "#d9534f" : "#5b8def", "\"><title>",
            Text(Str(d.store ? "store " : "load ", d.transfer_id, ": ", d.bytes, " B, ", d.start,
                     "..", d.end)),
            "</title></rect>\n");
  }
  svg_ += "</g>\n";
}

// Ticks in cycles under the Gantt chart, with faint lines up through it.
void Chart::TimeAxis(double y) {
  svg_ += Str("<g id=\"time-axis\" font-size=\"10\">\n", "<line x1=\"", Num(X(0)), "\" y1=\"",
              Num(y), "\" x2=\"", Num(X(end_)), "\" y2=\"", Num(y), "\" stroke=\"#333\"/>\n");
  for (const uint64_t t : Ticks()) {
    const std::string x = Num(X(t));
    svg_ += Str("<line class=\"grid\" x1=\"", x, "\" y1=\"", Num(gantt_top_), "\" x2=\"", x,
                "\" y2=\"", Num(y), "\" stroke=\"#000\" stroke-opacity=\"0.08\"/>\n");
    svg_ += Str("<line class=\"tick\" x1=\"", x, "\" y1=\"", Num(y), "\" x2=\"", x, "\" y2=\"",
                Num(y + 5), "\" stroke=\"#333\"/>\n");
    svg_ += Str("<text class=\"tick-label\" x=\"", x, "\" y=\"", Num(y + 16),
                "\" text-anchor=\"middle\">", ShortCount(t), "</text>\n");
  }
  svg_ += Str("<text x=\"4\" y=\"", Num(y + 16), "\">time (cycles)</text>\n</g>\n");
}

// The layers, then the DRAM directions and, when the
// cores deadlock, how a blocked core and a wait are drawn. Returns its bottom.
double Chart::Legend(double top) {
  // The layers in the order they first start, as the chart reads.
  std::map<uint32_t, uint64_t> first_start;
  for (const CoreTimeline& core : sim_.cores) {
    for (const WorkloadSpan& w : core.workloads) {
      const auto [it, added] = first_start.emplace(w.layer, w.start);
      if (!added) it->second = std::min(it->second, w.start);
    }
  }
  std::vector<uint32_t> layers;
  for (const auto& [layer, start] : first_start) layers.push_back(layer);
  std::stable_sort(layers.begin(), layers.end(),
                   [&](uint32_t a, uint32_t b) { return first_start[a] < first_start[b]; });
  struct Item {
    std::string swatch;  // the attributes of its rect
    std::string label;
  };
  std::vector<Item> items;
  for (const uint32_t layer : layers) {
    if (items.size() == kMostLayers) {
      items.push_back({"fill=\"none\"", Str("and ", layers.size() - kMostLayers, " more layers")});
      break;
    }
    const std::string& name = ir_.LayerName(layer);
    items.push_back({Str("fill=\"", LayerColour(layer), "\""),
                     Shortened(name.empty() ? Str("layer ", layer) : name, 28)});
  }
  items.push_back({"fill=\"#d9534f\"", "DRAM store (L2 to DRAM)"});
  items.push_back({"fill=\"#5b8def\"", "DRAM load (DRAM to L2)"});
  if (sim_.deadlock) {
    items.push_back({Str("fill=\"url(#blocked-hatch)\" stroke=\"", kBlockedColour, "\""),
                     "blocked: waits for ever"});
  }
  const auto per_row =
      std::max<size_t>(1, static_cast<size_t>((kWidth - kLeft - kRight) / kLegendItem));
  svg_ += Str("<g id=\"legend\">\n<text x=\"4\" y=\"", Num(top + 11), "\">legend</text>\n");
  for (size_t i = 0; i < items.size(); ++i) {
    const double x = kLeft + kLegendItem * static_cast<double>(i % per_row);
    const double y = top + kLegendRow * static_cast<double>(i / per_row);
    svg_ += Str("<g class=\"legend-item\"><rect x=\"", Num(x), "\" y=\"", Num(y + 2),
                "\" width=\"12\" height=\"10\" ", items[i].swatch, "/><text x=\"", Num(x + 16),
                "\" y=\"", Num(y + 11), "\">", Text(items[i].label), "</text></g>\n");
  }
  svg_ += "</g>\n";
  const size_t rows = (items.size() + per_row - 1) / per_row;
  return top + kLegendRow * static_cast<double>(rows);
}

// One scale for every core, set by the highest peak, unless the cores' peaks
// differ by more than a factor of two: then each core is drawn to its own.
void Chart::Occupancy(double top) {
  int64_t highest = 0, lowest = INT64_MAX;
  for (const CoreTimeline& core : sim_.cores) {
    highest = std::max(highest, core.peak_l2);
    lowest = std::min(lowest, core.peak_l2);
  }
  const bool shared = lowest >= highest / 2;
  svg_ += Str("<g id=\"l2\" data-scale=\"", shared ? "shared" : "per-core", "\">\n");
  for (size_t c = 0; c < sim_.cores.size(); ++c) {
    const int64_t peak = shared ? highest : sim_.cores[c].peak_l2;
    const uint64_t scale = NiceCeil(static_cast<uint64_t>(std::max<int64_t>(peak, 1)));
    OccupancyPlot(c, top + (kPlot + 30) * static_cast<double>(c), scale);
  }
  svg_ += "</g>\n";
}

void Chart::OccupancyPlot(size_t c, double top, uint64_t scale) {
  const CoreTimeline& core = sim_.cores[c];
  const auto y = [&](double bytes) {
    return top + kPlot - kPlot * std::min(1.0, bytes / static_cast<double>(scale));
  };
  svg_ += Str("<g class=\"l2-plot\" data-core=\"", core.core_id, "\">\n");
  svg_ += Str("<text x=\"", Num(kLeft), "\" y=\"", Num(top - 8), "\">core ", core.core_id,
              " L2 occupancy (peak ", core.peak_l2, " of ", ir_.buffersize, " B)</text>\n");
  svg_ += Str("<rect x=\"", Num(kLeft), "\" y=\"", Num(top), "\" width=\"",
              Num(kWidth - kLeft - kRight), "\" height=\"", kPlot,
              "\" fill=\"none\" stroke=\"#999\"/>\n");
  svg_ += Str("<g class=\"l2-scale\" font-size=\"10\" data-max-bytes=\"", scale, "\">\n");
  std::vector<uint64_t> levels = {0, scale};
  if (scale % 2 == 0) levels.insert(levels.begin() + 1, scale / 2);
  for (const uint64_t bytes : levels) {
    const std::string at = Num(y(static_cast<double>(bytes)));
    svg_ += Str("<line x1=\"", Num(kLeft - 4), "\" y1=\"", at, "\" x2=\"", Num(kWidth - kRight),
                "\" y2=\"", at, "\" stroke=\"#000\" stroke-opacity=\"0.08\"/>\n");
    svg_ += Str("<text class=\"tick-label\" x=\"", Num(kLeft - 6), "\" y=\"", at,
                "\" text-anchor=\"end\" dominant-baseline=\"middle\">", ShortCount(bytes),
                "B</text>\n");
  }
  svg_ += "</g>\n";
  for (const uint64_t t : Ticks()) {
    const std::string x = Num(X(t));
    svg_ += Str("<line class=\"grid\" x1=\"", x, "\" y1=\"", Num(top), "\" x2=\"", x, "\" y2=\"",
                Num(top + kPlot), "\" stroke=\"#000\" stroke-opacity=\"0.08\"/>\n");
  }
  if (ir_.buffersize > 0 && static_cast<uint64_t>(ir_.buffersize) <= scale) {
    const std::string at = Num(y(static_cast<double>(ir_.buffersize)));
    svg_ += Str("<line class=\"capacity\" x1=\"", Num(kLeft), "\" y1=\"", at, "\" x2=\"",
                Num(kWidth - kRight), "\" y2=\"", at,
                "\" stroke=\"#a00\" stroke-dasharray=\"4 3\"><title>buffersize ", ir_.buffersize,
                " B</title></line>\n");
  }
  std::string points;
  for (const WorkloadSpan& w : core.workloads) {
    const std::string level = Num(y(static_cast<double>(std::max<int64_t>(w.l2_bytes, 0))));
    points += Str(Num(X(w.start)), ",", level, " ", Num(X(w.end)), ",", level, " ");
  }
  svg_ += Str("<polyline fill=\"none\" stroke=\"#2a7\" stroke-width=\"1.2\" points=\"", points,
              "\"/>\n</g>\n");
}

// Each blocked core gets a hatched bar from where it stopped; the caption
// names the cycle, and arrows join the cores that wait for each other.
void Chart::Deadlock() {
  const auto& waiting = *sim_.deadlock;
  const auto name = [&](size_t i) {
    return Str("(core ", waiting[i].first, ", workload ", waiting[i].second, ")");
  };
  std::string caption;
  if (sim_.wait_cycle) {
    // Each workload of the cycle waits for the one before it: read backwards
    // from the first, back to the first.
    caption = "deadlock, a wait-for cycle: " + name(0);
    for (size_t k = 1; k <= waiting.size() && k <= kMostCycleInCaption; ++k)
      caption += " waits for " + name(waiting.size() - k);
    if (waiting.size() > kMostCycleInCaption)
      caption += Str(" ... (", waiting.size(), " workloads)");
  } else {
    caption = "deadlock: ";
    for (size_t i = 0; i < waiting.size() && i < kMostCycleInCaption; ++i)
      caption += (i == 0 ? "" : ", ") + name(i);
    caption += " wait for inputs that are never produced";
  }
  svg_ += Str("<g id=\"deadlock\">\n<text class=\"caption\" x=\"4\" y=\"34\" fill=\"",
              kBlockedColour, "\">", Text(caption), "</text>\n");
  for (size_t c = 0; c < sim_.cores.size(); ++c) {
    const CoreTimeline& core = sim_.cores[c];
    if (!core.blocked_at) continue;
    const double x = X(StopOf(c)), width = std::max(1.0, X(end_) - x), y = RowTop(c);
    svg_ += Str("<rect class=\"blocked\" x=\"", Num(x), "\" y=\"", Num(y + 2), "\" width=\"",
                Num(width), "\" height=\"", kRow - 6, "\" fill=\"url(#blocked-hatch)\" stroke=\"",
                kBlockedColour, "\"><title>",
                Text(Str("core ", core.core_id, " waits at workload ", *core.blocked_at, " from ",
                         StopOf(c))),
                "</title></rect>\n");
    if (width > 120) {
      svg_ += Str("<text x=\"", Num(x + 4), "\" y=\"", Num(y + 15), "\" fill=\"", kBlockedColour,
                  "\">waits at workload ", *core.blocked_at, "</text>\n");
    }
  }
  if (sim_.wait_cycle) WaitArrows();
  svg_ += "</g>\n";
}

// An arrow from each workload of the cycle to the one it waits for, when
// they are on different cores, spread over the room after the last event.
void Chart::WaitArrows() {
  const auto& cycle = *sim_.deadlock;
  const double left = X(sim_.total_cycles) + 8, right = X(end_) - 8;
  std::vector<std::pair<size_t, size_t>> arrows;  // (waiting, waited for) positions in the cycle
  for (size_t i = 0; i < cycle.size() && arrows.size() < kMostArrows; ++i) {
    const size_t waited = i == 0 ? cycle.size() - 1 : i - 1;
    if (cycle[i].first != cycle[waited].first) arrows.emplace_back(i, waited);
  }
  const double spacing = (right - left) / static_cast<double>(std::max<size_t>(arrows.size(), 1));
  for (size_t a = 0; a < arrows.size(); ++a) {
    const auto& [from, to] = arrows[a];
    const auto from_row = RowOf(cycle[from].first), to_row = RowOf(cycle[to].first);
    if (!from_row || !to_row) continue;
    const double x = left + spacing * (static_cast<double>(a) + 0.25);
    const double y1 = RowTop(*from_row) + kRow / 2, y2 = RowTop(*to_row) + kRow / 2;
    if (spacing > 90) {
      svg_ += Str("<text class=\"wait-label\" x=\"", Num(x + 5), "\" y=\"", Num((y1 + y2) / 2 + 4),
                  "\" fill=\"", kBlockedColour, "\" font-size=\"10\">waits for (", cycle[to].first,
                  ", ", cycle[to].second, ")</text>\n");
    }
    svg_ +=
        Str("<path class=\"wait\" d=\"M", Num(x), ",", Num(y1), " L", Num(x), ",",
            Num(y2 + (y2 > y1 ? -6 : 6)), "\" stroke=\"", kBlockedColour,
            "\" stroke-width=\"1.5\" fill=\"none\" marker-end=\"url(#wait-arrow)\"><title>",
            Text(Str("(core ", cycle[from].first, ", workload ", cycle[from].second,
                     ") waits for (core ", cycle[to].first, ", workload ", cycle[to].second, ")")),
            "</title></path>\n");
  }
}

std::string Chart::Draw() {
  if (sim_.deadlock) gantt_top_ += 16;  // room for the caption
  const double gantt_bottom = RowTop(sim_.cores.size() + 1);
  const double legend_top = gantt_bottom + 30;
  // The legend's height is known once drawn: the L2 plots go below it.
  std::string head = Str("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", kWidth,
                         "\" height=\"HEIGHT\" font-family=\"sans-serif\" font-size=\"11\">\n");
  Defs();
  Title();
  Gantt();
  if (sim_.deadlock) Deadlock();
  TimeAxis(gantt_bottom + 2);
  const double l2_top = Legend(legend_top) + 36;
  Occupancy(l2_top);
  const double height = l2_top + (kPlot + 30) * static_cast<double>(sim_.cores.size());
  head.replace(head.find("HEIGHT"), 6, Num(height));
  return head + svg_ + "</svg>\n";
}

}  // namespace

std::string SimulationSvg(const Ir& ir, const Simulation& sim) { return Chart(ir, sim).Draw(); }

}  // namespace accelcheck::gemini
