#!/usr/bin/env python3
"""Turns the frames of `tileskip view --record` into one animation, for slides.

Usage: make_animation.py FRAMES_DIR FPS FORMAT OUT     (OUT "-": the file on stdout)

FRAMES_DIR holds frame-0000.png, frame-0001.png, ... (one per teaching step); FORMAT is gif or
apng (drawn with Pillow, looping forever) or mp4 (H.264 by ffmpeg, yuv420p so every player takes
it; odd sizes are padded by one pixel). The tileskip command runs this script and writes its
output atomically. Exits 3 when Pillow (gif, apng) or ffmpeg (mp4) is missing, naming the Debian
package; 4 when the folder holds no frames; 2 on bad arguments.
"""
import glob
import os
import subprocess
import sys
import tempfile

EXIT_USAGE = 2
EXIT_MISSING = 3
EXIT_NO_FRAMES = 4


def frames_in(folder):
    return sorted(glob.glob(os.path.join(folder, "frame-[0-9][0-9][0-9][0-9].png")))


def with_pillow(paths, fps, fmt):
    try:
        from PIL import Image
    except ImportError:
        print("make_animation: Pillow is missing (Debian: apt install python3-pil)", file=sys.stderr)
        sys.exit(EXIT_MISSING)
    import io

    images = [Image.open(p).convert("RGB") for p in paths]
    duration = round(1000.0 / fps)
    out = io.BytesIO()
    if fmt == "gif":
        # One adaptive palette per frame: the UI's few hundred colours survive, gradients dither.
        frames = [im.quantize(colors=256, method=Image.Quantize.MEDIANCUT) for im in images]
        frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=duration, loop=0,
                       optimize=False, disposal=1)
    else:
        images[0].save(out, format="PNG", save_all=True, append_images=images[1:], duration=duration, loop=0)
    return out.getvalue()


def with_ffmpeg(folder, fps):
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        target = os.path.join(scratch, "out.mp4")
        command = ["ffmpeg", "-loglevel", "error", "-y", "-framerate", str(fps),
                   "-i", os.path.join(folder, "frame-%04d.png"),
                   "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", "-c:v", "libx264",
                   "-movflags", "+faststart", target]
        try:
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        except FileNotFoundError:
            print("make_animation: ffmpeg is not installed (Debian: apt install ffmpeg); "
                  "record a .gif or .apng instead", file=sys.stderr)
            sys.exit(EXIT_MISSING)
        if done.returncode != 0:
            print("make_animation: ffmpeg failed: " + done.stderr.strip().splitlines()[-1:][0]
                  if done.stderr.strip() else "make_animation: ffmpeg failed", file=sys.stderr)
            sys.exit(1)
        with open(target, "rb") as f:
            return f.read()


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return EXIT_USAGE
    folder, fps_text, fmt, out = argv[1:]
    try:
        fps = float(fps_text)
    except ValueError:
        fps = 0.0
    if not fps > 0 or fmt not in ("gif", "apng", "mp4"):
        print("make_animation: FPS must be positive and FORMAT gif, apng or mp4", file=sys.stderr)
        return EXIT_USAGE
    paths = frames_in(folder)
    if not paths:
        print(f"make_animation: no frame-NNNN.png in {folder}", file=sys.stderr)
        return EXIT_NO_FRAMES
    data = with_ffmpeg(folder, fps) if fmt == "mp4" else with_pillow(paths, fps, fmt)
    if out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        with open(out, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
