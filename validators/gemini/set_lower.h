// A SET-dialect IR in the Gemini dialect's tables, for the executors that
// read those (the schedule simulator): docs/formats/gemini.md §10 "Executors".
#pragma once

#include "validators/gemini/frontend.h"
#include "validators/gemini/model.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini {

// Workloads keep their global ids and mesh-id cores; sizes become bytes and
// block addresses byte addresses in a buffer of 1024 KiB; each workload's
// ofmaps are the blocks every ofmap entry labelled with it sends (the writer
// lists some under a neighbour's entry, §10); a tensor listed twice in a
// snapshot is one entry; the DRAM ports' lists become one list each. With a
// frontend IR each workload becomes one tile: its ofmap bounds, reading
// their receptive field, so the functional executor computes it.
Ir LowerSetIr(const set::Ir& set_ir, const Frontend* frontend = nullptr);

}  // namespace accelcheck::gemini
