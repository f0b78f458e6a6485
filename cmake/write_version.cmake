# Writes the version header (core/version.hpp.in) with the commit the tree is at now. Run by the
# tileskip_version target at every build, so a report never names the commit the build was
# configured from; configure_file leaves the header untouched when nothing changed, so only a
# new commit (or a tree turning dirty or clean) recompiles what includes it.
#   cmake -DSOURCE_DIR=... -DINPUT=... -DOUTPUT=... -DPROJECT_VERSION=... [-DGIT_EXECUTABLE=...] -P write_version.cmake
set(TILESKIP_GIT_COMMIT "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE tileskip_commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE tileskip_git_result)
  if(tileskip_git_result EQUAL 0 AND tileskip_commit)
    set(TILESKIP_GIT_COMMIT "${tileskip_commit}")
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
