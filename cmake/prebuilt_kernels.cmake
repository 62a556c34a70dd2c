# The prebuilt kernels (docs/jit.md, "Prebuilt kernels"): tools/prebuild_kernels.cpp evaluates
# common graphs with the kernel cache at `dir`, so that `dir` ends up holding their compiled
# kernels (<key[0:2]>/<key>.so); the caller installs those files where default_prebuilt_dir()
# looks (a directory `cgrad-kernels` beside the binary that holds cgrad). Re-run whenever the
# library (and so the generated kernels) changes; `dir` is emptied first.
function(cgrad_prebuilt_kernels target dir)
  add_executable(cgrad_prebuild_kernels ${cgrad_SOURCE_DIR}/tools/prebuild_kernels.cpp)
  target_link_libraries(cgrad_prebuild_kernels PRIVATE cgrad::cgrad)
  add_custom_command(OUTPUT ${dir}/.complete
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir}
    COMMAND ${CMAKE_COMMAND} -E env CGRAD_CACHE_DIR=${dir} CGRAD_PREBUILT_KERNELS=0 CGRAD_RESULT_CACHE_BYTES=0
            $<TARGET_FILE:cgrad_prebuild_kernels>
    COMMAND ${CMAKE_COMMAND} -E touch ${dir}/.complete
    DEPENDS cgrad_prebuild_kernels
    COMMENT "Compiling the prebuilt kernels into ${dir}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${dir}/.complete)
endfunction()

# install(...) of the kernels a cgrad_prebuilt_kernels() target compiled: the shared objects and the
# compiler's probe memo (toolchain/: read when the user's cache has none, valid for the very
# driver file that made it), not the cache's header copy or lock files.
function(cgrad_install_prebuilt_kernels dir destination component)
  install(DIRECTORY ${dir}/ DESTINATION ${destination} COMPONENT ${component}
          FILES_MATCHING PATTERN "*.so" PATTERN "toolchain/*" PATTERN "include" EXCLUDE)
endfunction()
