#!/usr/bin/env bash
# Installs the Debian 12 packages tileskip builds and tests with, when any are missing.
# Idempotent: with everything present it changes nothing and needs no network.
# Pillow (python3-pil) draws `view --record`'s GIF and APNG; MP4 needs ffmpeg, which is left to
# whoever wants it (apt install ffmpeg): without it `--record FILE.mp4` says so and exits 3.
# The CUDA toolkit is not a Debian package: when `nvcc` is on the PATH (or in /usr/local/cuda)
# the CUDA backend is built too, otherwise it is left out.
# The Python package builds and tests from Debian's pybind11 and pytest. Its build backend for
# `pip install .`, scikit-build-core, is not in Debian: this script fetches its wheels from PyPI
# into build/wheels once, so that the install itself downloads nothing
# (docs/python.md, "Its CUDA module, wheels and the build backend"). Without PyPI it says so and goes on: the tests need none of it.
set -euo pipefail
cd "$(dirname "$0")/.."

# The wheelhouse pip's isolated build installs from (--no-index --find-links build/wheels).
fetch_build_backend() {
  if compgen -G "build/wheels/scikit_build_core-*.whl" >/dev/null; then return 0; fi
  mkdir -p build/wheels
  if python3 -m pip download --quiet --only-binary=:all: --dest build/wheels 'scikit-build-core>=0.10' 2>/dev/null; then
    echo "install-deps: fetched scikit-build-core into build/wheels for pip install ."
  else
    echo "install-deps: could not fetch scikit-build-core from PyPI; pip install . will need it (the tests do not)" >&2
  fi
}

packages=(
  build-essential cmake ninja-build pkg-config git
  libopenblas-dev nlohmann-json3-dev libcli11-dev libgtest-dev libssl-dev libzip-dev
  libvulkan-dev glslang-tools spirv-tools vulkan-validationlayers mesa-vulkan-drivers
  libglfw3-dev libimgui-dev libstb-dev zlib1g-dev xvfb fonts-dejavu-core
  python3 python3-numpy python3-scipy python3-sklearn python3-matplotlib python3-pil
  python3-dev pybind11-dev libdlpack-dev python3-pytest python3-pip python3-venv
  clang libclang-rt-14-dev
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  fetch_build_backend
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    sudo="sudo"
  else
    echo "install-deps: missing ${missing[*]}; run this script as root (or install sudo)" >&2
    exit 2
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fetch_build_backend
