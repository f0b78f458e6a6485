#!/usr/bin/env bash
# Installs the Debian 12 packages tileskip builds and tests with, when any are missing.
# Idempotent: with everything present it changes nothing and needs no network.
# The CUDA toolkit is not a Debian package: when `nvcc` is on the PATH (or in /usr/local/cuda)
# the CUDA backend is built too, otherwise it is left out.
# The Python package builds and tests from Debian's pybind11 and pytest; only `pip install .`
# takes something from PyPI: pip fetches the build backend, scikit-build-core, into its
# isolated build environment (README, "tileskip from Python").
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libopenblas-dev nlohmann-json3-dev libcli11-dev libgtest-dev
  libvulkan-dev glslang-tools spirv-tools vulkan-validationlayers mesa-vulkan-drivers
  libglfw3-dev libimgui-dev libstb-dev xvfb fonts-dejavu-core
  python3 python3-numpy python3-scipy python3-sklearn python3-matplotlib
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
