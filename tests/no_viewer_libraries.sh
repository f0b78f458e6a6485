#!/bin/sh
# Usage: no_viewer_libraries.sh VIEWER_MODULE|- EXECUTABLE...
# Fails when an executable needs, directly or through another library, one of the libraries
# only the viewer uses (Vulkan loader, GLFW, stb, X11): it would not start on a machine without
# them. The viewer module, where the build has one, must need them: that shows the pattern
# still names what ldd prints.
set -u
pattern='lib(vulkan|glfw|stb|X11|xcb)\.so'
module=$1
shift
status=0
for executable in "$@"; do
  if ! needed=$(ldd "$executable"); then
    echo "ldd failed on $executable"
    exit 1
  fi
  if printf '%s\n' "$needed" | grep -E "$pattern"; then
    echo "$executable needs the viewer's libraries above"
    status=1
  fi
done
if [ "$module" != - ] && ! ldd "$module" | grep -qE "$pattern"; then
  echo "$module does not need the viewer's libraries: the pattern no longer matches what ldd prints"
  status=1
fi
exit $status
