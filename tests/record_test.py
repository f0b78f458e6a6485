#!/usr/bin/env python3
"""`tileskip view --record` on lavapipe, offscreen: the animation has one frame per K-block asked
for, the size asked for, frames that differ, the frame rate asked for; MP4 without ffmpeg is
exit 3 and writes nothing; a failing encoder leaves no file, not even a partial one; Ctrl-C while
encoding leaves neither the frames nor a partial file; bad flags are exit 2. Usage: record_test.py TILESKIP. Skips (77) without Pillow."""
import os
import signal
import subprocess
import sys
import tempfile
import time

try:
    from PIL import Image, ImageChops
except ImportError:
    print("record_test: Pillow missing (apt install python3-pil): skipped")
    sys.exit(77)

TILESKIP = sys.argv[1]
BASE = ["view", "--backend", "cpu", "--size", "256", "--kernel", "a-row", "--block", "8", "--no-timing",
        "--width", "640", "--height", "400"]
failures = []


def run(args, env=None):
    done = subprocess.run([TILESKIP, *BASE, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env={**os.environ, **(env or {})})
    return done.returncode, done.stdout


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def frames(path):
    image = Image.open(path)
    out = []
    for i in range(image.n_frames):
        image.seek(i)
        out.append((image.convert("RGB").copy(), image.info.get("duration")))
    return image.size, out


with tempfile.TemporaryDirectory() as scratch:
    for name, kblocks, count in (("walk.gif", "0..3", 4), ("walk.apng", "2..4", 3)):
        path = os.path.join(scratch, name)
        code, output = run(["--record", path, "--record-kblocks", kblocks, "--fps", "4"])
        expect(code == 0, f"{name}: exit {code}: {output}")
        if code != 0:
            continue
        size, shots = frames(path)
        expect(size == (640, 400), f"{name}: size {size}")
        expect(len(shots) == count, f"{name}: {len(shots)} frames, asked for {count}")
        expect(all(d == 250 for _, d in shots), f"{name}: durations {[d for _, d in shots]} at 4 fps")
        for i in range(1, len(shots)):
            expect(ImageChops.difference(shots[i - 1][0], shots[i][0]).getbbox() is not None,
                   f"{name}: frames {i - 1} and {i} are the same picture")
    expect(sorted(os.listdir(scratch)) == ["walk.apng", "walk.gif"], f"left behind: {os.listdir(scratch)}")

    # MP4 without ffmpeg on the PATH: exit 3, saying what to install, nothing written.
    mp4 = os.path.join(scratch, "walk.mp4")
    empty = os.path.join(scratch, "no-ffmpeg")
    os.mkdir(empty)
    code, output = run(["--record", mp4], env={"PATH": empty})
    expect(code == 3 and "ffmpeg" in output, f"mp4 without ffmpeg: exit {code}: {output}")
    expect(not os.path.exists(mp4), "mp4 without ffmpeg left a file")

    # An encoder that writes half a file and fails: no file at all.
    broken = os.path.join(scratch, "broken.py")
    with open(broken, "w") as f:
        f.write("import sys\nsys.stdout.write('GIF89a half')\nsys.stdout.flush()\nsys.exit(1)\n")
    gif = os.path.join(scratch, "broken.gif")
    code, output = run(["--record", gif, "--record-kblocks", "0..1"], env={"TILESKIP_ANIMATION_SCRIPT": broken})
    expect(code == 3, f"failing encoder: exit {code}: {output}")
    expect(not [n for n in os.listdir(scratch) if n.startswith("broken.gif")], f"failing encoder left {os.listdir(scratch)}")

    for args, why in ((["--record", os.path.join(scratch, "x.txt")], "unknown format"),
                      (["--record", gif, "--record-kblocks", "5..2"], "backwards range"),
                      (["--record", gif, "--record-kblocks", "0..999"], "range past K"),
                      (["--record", gif, "--fps", "0"], "fps 0"),
                      (["--record", gif, "--fps", "0.001"], "fps below a GIF frame's longest duration"),
                      (["--record-kblocks", "0..2", "--screenshot", os.path.join(scratch, "y.png")], "range without --record")):
        code, output = run(args)
        expect(code == 2, f"{why}: exit {code}, expected 2: {output}")

    # A folder nothing can be written to (even as root): refused before any frame is rendered or
    # encoded (the encoder, here one that leaves a mark, never runs).
    mark = os.path.join(scratch, "encoded")
    marking = os.path.join(scratch, "marking.py")
    with open(marking, "w") as f:
        f.write(f"open({mark!r}, 'w').close()\nimport sys\nsys.stdout.write('GIF89a')\n")
    code, output = run(["--record", "/proc/tileskip-walk.gif", "--record-kblocks", "0..1"],
                       env={"TILESKIP_ANIMATION_SCRIPT": marking})
    expect(code == 2, f"unwritable folder: exit {code}, expected 2: {output}")
    expect(not os.path.exists(mark), "unwritable folder: the frames were rendered and encoded before failing")

    # Ctrl-C while the recording is encoded, its frames all on disk: the frames' folder and the
    # recording's temporary go with the process, which dies of the signal as it would without us.
    private_tmp = os.path.join(scratch, "tmp")
    os.mkdir(private_tmp)
    started = os.path.join(scratch, "encoder-started")
    slow = os.path.join(scratch, "slow.py")
    with open(slow, "w") as f:
        f.write(f"import time\nopen({started!r}, 'w').close()\ntime.sleep(120)\n")
    stopped = os.path.join(scratch, "stopped.gif")
    process = subprocess.Popen([TILESKIP, *BASE, "--record", stopped, "--record-kblocks", "0..2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, "TMPDIR": private_tmp, "TILESKIP_ANIMATION_SCRIPT": slow})
    deadline = time.monotonic() + 120
    while not os.path.exists(started) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    folders = [n for n in os.listdir(private_tmp) if n.startswith("tileskip-record-")]
    expect(len(folders) == 1 and os.listdir(os.path.join(private_tmp, folders[0])),
           f"no frames on disk while encoding: {os.listdir(private_tmp)}")
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the encoder too
    code = process.wait(timeout=60)
    expect(code == -signal.SIGINT, f"Ctrl-C while encoding: exit {code}, expected death by SIGINT")
    expect(os.listdir(private_tmp) == [], f"Ctrl-C left {os.listdir(private_tmp)} in the temporary folder")
    expect(not [n for n in os.listdir(scratch) if "stopped.gif" in n], f"Ctrl-C left {os.listdir(scratch)}")

print("record_test:", "FAILED" if failures else "passed", f"({len(failures)} failures)")
sys.exit(1 if failures else 0)
