"""The committed API census (tests/census_table.csv, docs/census.md; scripts/census.py makes them from the
corpus' git mirrors, outside CI) holds what it promises: every public name or dtype that at least 1% of
the corpus' repositories use works in webtorch or is refused with NotImplementedError naming the gap,
judged by webtorch as it is now (the table's own status column is the one at generation), except the
gaps tests/census_gaps.txt still lists. A name with a
private component (torch._foreach_mul_, torch._C...) is not API: the table counts it, this check does not.
Keywords are counted in the table and not held here (a keyword webtorch lacks raises TypeError)."""
import csv
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import census  # noqa: E402

ROWS = list(csv.DictReader(open(census.TABLE, encoding="utf-8")))
REPOS = census.read_corpus()
CUT = math.ceil(census.THRESHOLD * len(REPOS))
HELD = [r for r in ROWS if r["kind"] in ("name", "dtype") and int(r["repos"]) >= CUT
        and not any(part.startswith("_") for part in r["name"].split("."))]


def test_table_is_a_census_of_the_corpus():
    assert len(REPOS) >= 40 and len({name for name, _ in REPOS}) == len(REPOS)
    assert all(len(commit) == 40 for _, commit in REPOS)
    assert {r["kind"] for r in ROWS} == {"name", "dtype", "keyword"}
    assert max(int(r["repos"]) for r in ROWS) <= len(REPOS)
    assert len(HELD) > 500  # the rule holds a broad surface, not a handful


# The names the census found missing that are not closed yet: the check is a ratchet. Each line is a gap to
# close (implement the name, or refuse it in webtorch/_refusals.py), then delete; a name missing that is not
# listed fails, and so does a listed name that works or is refused now.
GAPS = os.path.join(ROOT, "tests", "census_gaps.txt")


def test_every_used_name_works_or_is_refused():
    gaps = {line.split("#")[0].strip() for line in open(GAPS, encoding="utf-8")} - {""}
    missing = {r["name"] for r in HELD if census._webtorch_status(r["name"]) == "missing"}
    assert not missing - gaps, (f"used by at least {CUT} of {len(REPOS)} repositories and neither in webtorch nor "
                                f"refused in webtorch/_refusals.py: {sorted(missing - gaps)}")
    assert not gaps - missing, f"closed now: delete from tests/census_gaps.txt: {sorted(gaps - missing)}"
