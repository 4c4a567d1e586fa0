"""Warm SessionStart before and after issue 11, interleaved in one run: `git worktree add --detach /tmp/i11/old 06343f2`
(main when issue 11 began), then `.venv/bin/python bench/bench_warm_ab.py fixtures/devvault 20`. Each run is
`python -m memory_plugin hook session-start` from a folder named `tollgate-api` with a built index."""
import json, os, statistics, subprocess, sys, time
PY = "/work/wt/i11/.venv/bin/python"
VAULT = sys.argv[1]
RUNS = int(sys.argv[2])
trees = {"before (06343f2)": "/tmp/i11/old", "after (issue 11)": "/work/wt/i11"}
work = "/tmp/i11/w/tollgate-api"
os.makedirs(work, exist_ok=True)
res = {k: [] for k in trees}
base = []
for name, tree in trees.items():
    subprocess.run([PY, "-m", "compileall", "-q", tree + "/memory_plugin"], check=True)
    env = {**os.environ, "PYTHONPATH": tree, "MEMORY_PLUGIN_VAULT": VAULT, "MEMORY_PLUGIN_CACHE_DIR": f"/tmp/i11/ab-{name[:5]}"}
    subprocess.run([PY, "-m", "memory_plugin", "rebuild"], env=env, check=True, capture_output=True)
for i in range(RUNS):
    for name, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": tree, "MEMORY_PLUGIN_VAULT": VAULT, "MEMORY_PLUGIN_CACHE_DIR": f"/tmp/i11/ab-{name[:5]}"}
        t0 = time.perf_counter()
        r = subprocess.run([PY, "-m", "memory_plugin", "hook", "session-start"], env=env, capture_output=True, text=True,
                           input=json.dumps({"cwd": work, "source": "startup"}))
        res[name].append(time.perf_counter() - t0)
        assert r.returncode == 0 and r.stdout.startswith("{")
        time.sleep(0.3)  # let the detached sync go
    t0 = time.perf_counter(); subprocess.run([PY, "-c", "pass"]); base.append(time.perf_counter() - t0)
b = statistics.median(base)
for name in trees:
    m = statistics.median(res[name])
    print(f"| {name} | {m*1000:.0f} ms | {sorted(res[name])[int(0.95*(RUNS-1))]*1000:.0f} ms | {m/b:.1f}× |")
print(f"bare python -c pass median {b*1000:.1f} ms; load {os.getloadavg()[0]:.1f}")
