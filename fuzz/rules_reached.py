#!/usr/bin/env python3
"""The rules each format's fuzz targets reach from their seeds.

    fuzz/rules_reached.py --build BUILD [--seeds DIR]

Every target of fuzz/targets.txt replays its seeds (DIR/<target>, as
fuzz/seeds.sh writes them; BUILD/fuzz/seeds by default, where the fuzz
build's seeds tests put them) and fuzz/regressions/<format>/ once, logging the
rules its diagnostics name (fuzz_oracles.h RuleLog). A rule that no target of
its format reaches is one no campaign starts from: each is listed, and the
exit status is 1. Exit 0 when every rule of every format is reached, 2 on a
usage problem.
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import campaign  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, required=True, help="a fuzz build")
    parser.add_argument("--seeds", type=Path, help="the seeds, a folder per target")
    args = parser.parse_args()
    seeds = args.seeds or args.build / "fuzz" / "seeds"
    accelcheck = args.build / "tools" / "accelcheck"
    reached, missing = {}, []
    with tempfile.TemporaryDirectory() as work:
        for target, fmt in campaign.read_targets():
            binary = args.build / "fuzz" / target
            if not binary.exists() or not (seeds / target).is_dir():
                missing.append(target)
                continue
            options = campaign.libfuzzer_options(args.build / "fuzz" / f"{target}.options")
            regressions = campaign.HERE / "regressions" / fmt
            inputs = [seeds / target] + ([regressions] if regressions.is_dir() else [])
            rules, _ = campaign.replay_rules(binary, options, inputs, Path(work) / target)
            print(f"{target}: {len(rules)} rules")
            reached.setdefault(fmt, set()).update(rules)
    if missing:
        print(f"rules_reached.py: no build or seeds of {' '.join(missing)}", file=sys.stderr)
        return 2
    unreached = 0
    for fmt, rules in reached.items():
        never = sorted(campaign.format_rules(accelcheck, fmt) - rules)
        unreached += len(never)
        print(f"{fmt}: {len(never)} rules no target reaches" +
              (f": {' '.join(never)}" if never else ""))
    return 1 if unreached else 0


if __name__ == "__main__":
    sys.exit(main())
