#!/usr/bin/env python3
"""The ecosystem test: vsvk as a user meets it, installed by pip beside R81's package.

1. A fresh venv (Python 3.12) gets vsvk's wheel and what vs-jetpack's users install
   (tests/ecosystem/requirements.txt: R81's `vapoursynth`, vsjetpack, plugin wheels).
2. End to end: `vsvk pipe` of tests/ecosystem/vstools_gpu.vpy (vstools and GPU plugins; lavapipe
   where there is no GPU) writes every frame, and the bytes equal R81's vspipe's; `vsvk render` of
   it on Ray (tests/ecosystem/requirements-render.txt) writes the same bytes.
3. vs-jetpack's own test suite, from its sdist on PyPI (the version requirements.txt pins), runs
   three times in that venv: on R81; on vsvk's module (`vsvk frontend vsvk`, then VSVK_FRONTEND=r81
   for the run on R81); and R81's module on
   vsvk's core (`vsvk with-core`). Any test that passes on R81 and not on the other two fails the
   run, except, for vsvk's module, the ones tests/ecosystem/known-gaps.txt lists with their cause
   (each a gap still open; one that passes now is reported, so that the list only shrinks).

Usage: tests/ecosystem/run.py [--wheel FILE] [--work DIR] [--skip-pipe] [--skip-suite]
Environment: VSVK_PY312 (the Python 3.12 to make the venv with; default: python3.12 on PATH, then
pyenv's). Exit status 0 when everything above holds. Ends with a line 'N passed, N failed'.
"""
import argparse
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
JETPACK = next(
    line.split("==")[1].strip()
    for line in (HERE / "requirements.txt").read_text().splitlines()
    if line.startswith("vsjetpack==")
)


def say(*a):
    print("ecosystem:", *a, flush=True)


def run(cmd, **kw):
    say("$", " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], **kw)


def python312():
    """A working Python 3.12 (pyenv's shims name interpreters that may not run, so each is tried)."""
    env = os.environ.get("VSVK_PY312")
    cands = [env] if env else []
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3")), reverse=True)
    cands += [shutil.which("python3.12")]
    for c in cands:
        if c and subprocess.run([c, "-c", "import sys; assert sys.version_info[:2] == (3, 12)"], capture_output=True).returncode == 0:
            return c
    sys.exit("ecosystem: no working Python 3.12 found (set VSVK_PY312): R81's wheels need it")


def make_venv(work, wheel):
    venv = work / "venv"
    if venv.exists():
        shutil.rmtree(venv)
    run([python312(), "-m", "venv", venv], check=True)
    py = venv / "bin" / "python"
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run(pip + ["-r", HERE / "requirements.txt"], check=True)
    run(pip + ["--no-deps", wheel], check=True)
    # Ray, for vsvk render from the wheel (render_end_to_end)
    run(pip + ["-r", HERE / "requirements-render.txt"], check=True)
    # R81's vspipe embeds Python through VSScript, which must be told this venv's Python once.
    run([py, "-m", "vapoursynth", "config"], check=True, env=dict(os.environ, VSVK_FRONTEND="r81"))
    return venv


def vulkan_env():
    env = dict(os.environ)
    if not env.get("VK_ICD_FILENAMES") and not env.get("VK_DRIVER_FILES") and not shutil.which("nvidia-smi"):
        lvp = "/usr/share/vulkan/icd.d/lvp_icd.json"
        if os.path.exists(lvp):
            env["VK_ICD_FILENAMES"] = lvp
    ref = Path(env.get("VSVK_REF", os.path.expanduser("~/.cache/vsvk-ref")))
    loader = ref / "loader" / "lib"
    if loader.is_dir():
        # The Vulkan 1.4 loader scripts/setup.sh builds (Debian 12's is older than lavapipe's API).
        env["LD_LIBRARY_PATH"] = f"{loader}:{env['LD_LIBRARY_PATH']}" if env.get("LD_LIBRARY_PATH") else str(loader)
    return env


def pipe_end_to_end(venv, work):
    """vsvk pipe from the wheel against R81's vspipe on the same script: same frames, same bytes."""
    env = vulkan_env()
    script = HERE / "vstools_gpu.vpy"
    ours, theirs = work / "pipe-vsvk.y4m", work / "pipe-r81.y4m"
    failures = []
    r = run([venv / "bin" / "vsvk", "pipe", "-c", "y4m", script, ours], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"vsvk pipe failed ({r.returncode}):\n{r.stderr}")
    r81 = dict(env, VSVK_FRONTEND="r81")
    r = run([venv / "bin" / "vspipe", "-c", "y4m", script, theirs], env=r81, capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"R81's vspipe failed ({r.returncode}):\n{r.stderr}")
    # R81's own `vspipe` command under the vsvk frontend runs `vsvk pipe` (vsvk.vspipe)
    frontend = work / "pipe-vspipe-command-on-vsvk.y4m"
    r = run([venv / "bin" / "vspipe", "-c", "y4m", script, frontend], env=dict(env, VSVK_FRONTEND="vsvk"), capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"the vspipe command under the vsvk frontend failed ({r.returncode}):\n{r.stderr}")
    if not failures:
        a, b = ours.read_bytes(), theirs.read_bytes()
        if frontend.read_bytes() != a:
            failures.append("the vspipe command under the vsvk frontend wrote other bytes than vsvk pipe")
        frames = a.count(b"FRAME")
        say(f"vsvk pipe wrote {len(a)} bytes ({frames} frames), R81's vspipe {len(b)} bytes ({b.count(b'FRAME')} frames)")
        if frames != 8:
            failures.append(f"vsvk pipe wrote {frames} frames, the script has 8")
        if a != b:
            failures.append(
                f"vsvk pipe's output differs from R81's: sha256 {hashlib.sha256(a).hexdigest()[:16]} against {hashlib.sha256(b).hexdigest()[:16]}"
            )
    return failures


def render_end_to_end(venv, work):
    """vsvk render from the wheel: Ray's workers import vsvk from the venv; the chunks joined are
    vsvk pipe's bytes (pipe_end_to_end's output)."""
    env = vulkan_env()
    script = HERE / "vstools_gpu.vpy"
    out = work / "render-vsvk.y4m"
    r = run([venv / "bin" / "vsvk", "render", "-c", "y4m", "--chunk", "3", "--cpus-per-worker", "1", "--workers", "2", script, out],
            env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return [f"vsvk render failed ({r.returncode}):\n{r.stderr}"]
    if out.read_bytes() != (work / "pipe-vsvk.y4m").read_bytes():
        return ["vsvk render wrote other bytes than vsvk pipe"]
    say("vsvk render (3 chunks of 3, 3, 2 frames on 2 workers) wrote vsvk pipe's bytes")
    return []


def frontend_switch(venv):
    """`vsvk frontend` and VSVK_FRONTEND decide what `import vapoursynth` gives, R81's files untouched."""
    py, vsvk = venv / "bin" / "python", venv / "bin" / "vsvk"
    probe = "import vapoursynth, vsvk; print('vsvk' if vapoursynth is vsvk else 'r81')"
    failures = []

    def which(extra):
        r = run([py, "-c", probe], env=dict(os.environ, **extra), capture_output=True, text=True)
        return r.stdout.strip() or f"error: {r.stderr.strip()[-300:]}"

    for choice, run_env, want in (("r81", {}, "r81"), ("vsvk", {}, "vsvk"), ("vsvk", {"VSVK_FRONTEND": "r81"}, "r81"),
                                  ("r81", {"VSVK_FRONTEND": "vsvk"}, "vsvk")):
        run([vsvk, "frontend", choice], check=True, capture_output=True)
        got = which(run_env)
        if got != want:
            failures.append(f"vsvk frontend {choice} with {run_env or 'no VSVK_FRONTEND'}: import vapoursynth gave {got}, not {want}")
    return failures


def fetch_suite(venv, work):
    dest = work / f"vsjetpack-{JETPACK}"
    if (dest / "tests").is_dir():
        return dest
    sdists = work / "sdist"
    run(
        [venv / "bin" / "python", "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
         "--no-binary", ":all:", "-d", sdists, f"vsjetpack=={JETPACK}"],
        check=True,
    )
    (archive,) = sdists.glob(f"vsjetpack-{JETPACK}.tar.gz")
    with tarfile.open(archive) as t:
        t.extractall(work, filter="data")
    return dest


def outcomes(junit):
    """test id -> 'passed' | 'failed' | 'error' | 'skipped', from pytest's JUnit XML."""
    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        if "error" in kinds:
            out[name] = "error"
        elif "failure" in kinds:
            out[name] = "failed"
        elif "skipped" in kinds:
            out[name] = "skipped"
        else:
            out[name] = "passed"
    return out


def run_suite(venv, suite, label, prefix, env, work):
    junit = work / f"jetpack-{label}.xml"
    log = work / f"jetpack-{label}.log"
    cmd = prefix + [venv / "bin" / "python", "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"]
    with open(log, "w") as f:
        r = run(cmd, cwd=suite, env=env, stdout=f, stderr=subprocess.STDOUT)
    tail = log.read_text().strip().splitlines()[-1:] or ["(no output)"]
    say(f"{label}: exit {r.returncode}: {tail[0]}  (log: {log})")
    if not junit.exists():
        return {}
    return outcomes(junit)


def known_gaps():
    gaps = {}
    for line in (HERE / "known-gaps.txt").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            test, _, why = line.partition("  # ")
            gaps[test.strip()] = why.strip()
    return gaps


def suite(venv, work):
    suite_dir = fetch_suite(venv, work)
    env = vulkan_env()
    vsvk = venv / "bin" / "vsvk"
    run([vsvk, "frontend", "vsvk"], check=True, env=env)
    r81 = run_suite(venv, suite_dir, "r81", [], dict(env, VSVK_FRONTEND="r81"), work)
    ours = run_suite(venv, suite_dir, "vsvk-module", [], dict(env, VSVK_FRONTEND="vsvk"), work)
    over = run_suite(venv, suite_dir, "r81-module-on-vsvk-core", [vsvk, "with-core"], env, work)
    passed_r81 = sorted(t for t, o in r81.items() if o == "passed")
    failures = []
    if not passed_r81:
        failures.append("no test passed on R81: the suite did not run")
    gaps = known_gaps()
    for label, res, allowed in (("vsvk's module", ours, gaps), ("R81's module on vsvk's core", over, {})):
        lost = [t for t in passed_r81 if res.get(t) != "passed" and t not in allowed]
        count = sum(1 for t in passed_r81 if res.get(t) == "passed")
        say(f"{label}: {count} of the {len(passed_r81)} tests R81 passes pass")
        for t in lost:
            failures.append(f"{label}: {t} passes on R81 but is {res.get(t, 'missing')}")
    closed = [t for t in gaps if ours.get(t) == "passed"]
    for t in closed:
        say(f"known gap closed (remove it from known-gaps.txt): {t}")
    return failures, len(passed_r81)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", help="vsvk's wheel (default: build it with scripts/build-wheel.sh)")
    ap.add_argument("--work", default=str(ROOT / "target" / "ecosystem"))
    ap.add_argument("--skip-pipe", action="store_true")
    ap.add_argument("--skip-suite", action="store_true")
    a = ap.parse_args()
    work = Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    wheel = a.wheel
    if not wheel:
        r = run([ROOT / "scripts" / "build-wheel.sh"], check=True, stdout=subprocess.PIPE, text=True)
        wheel = r.stdout.strip().splitlines()[-1]
    venv = make_venv(work, Path(wheel).resolve())
    checks, failures = 0, []
    failures += frontend_switch(venv)
    checks += 4
    if not a.skip_pipe:
        f = pipe_end_to_end(venv, work)
        checks += 1
        failures += f
        if not f:
            failures += render_end_to_end(venv, work)
            checks += 1
    if not a.skip_suite:
        f, n = suite(venv, work)
        checks += 2 * n
        failures += f
    for f in failures:
        say("FAIL", f)
    print(f"ecosystem: {checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
