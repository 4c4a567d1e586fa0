"""The capture detector's weights are data: bench/fit/fit_capture.py writes
memory_plugin/claude/capture_weights.json and capture.py loads it (never its own source rewritten)."""
import json
import sys
from pathlib import Path

from memory_plugin.claude import capture

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "fit"))
import fit_capture as F  # noqa: E402

SHIPPED = ROOT / "memory_plugin" / "claude" / "capture_weights.json"


def test_capture_loads_the_shipped_weights_file():
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert F.WEIGHTS_FILE == SHIPPED
    assert (capture.BIAS, capture.THRESHOLD) == (data["bias"], data["threshold"])
    assert list(capture.WEIGHTS.items()) == list(data["weights"].items())  # same order too: ties sort by it
    assert set(capture.WEIGHTS) == set(capture._NAMES)  # every feature has a weight, and nothing else does


def test_the_shipped_file_is_what_the_fit_writes(tmp_path):
    """Its content in the fit's own format (so a refit changes only values), the sets it names exist."""
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    fit_on = data["fit_on"]
    out = tmp_path / "w.json"
    F.write_weights(out, F.weights_data(data["bias"], data["weights"], data["threshold"], fit_on["capture_sets"],
                                        fit_on["prompt_sets"], fit_on["commit"]))
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")
    dev = ROOT / "bench" / "dev"
    assert F.sets(dev, "", fit_on["capture_sets"] + fit_on["prompt_sets"])  # each one there (else SystemExit)


def test_a_fit_writes_what_capture_reads(tmp_path):
    prompts = ["From now on, we deploy on Fridays only.", "Remember that staging runs on port 5433.",
               "We decided to use Postgres, not MySQL.", "Our builds always run with -Werror.",
               "can you fix the failing test?", "what does this function return?", "rename foo to bar please",
               "why is the build slow today?", "I think it always crashes on start", "add a retry to the fetch"]
    qs = [{"prompt": p, "y": i < 4, "sents": capture.prompt_features(p, exhaustive=True) or [{}]}
          for i, p in enumerate(prompts)]
    bias, weights = F.fit(qs)
    assert (bias, weights) == F.fit(qs)  # deterministic
    t = F.threshold(qs, bias, weights)
    out = tmp_path / "capture_weights.json"
    F.write_weights(out, F.weights_data(bias, weights, t, ["a"], ["b"], "abc1234"))
    data = capture._fitted(str(out))
    assert data["bias"] == round(bias, 3) and data["threshold"] == t
    assert list(data["weights"]) == sorted(weights, key=lambda n: -weights[n]) and set(data["weights"]) == set(capture._NAMES)
    assert all(F.score(q, data["bias"], data["weights"]) >= t for q in qs if q["y"])
