# The CPU JIT layer's extra sources (included from src/CMakeLists.txt after cgrad_layer(cgrad_jit)).
# include/cgrad/scalar.hpp is embedded as a string: generated kernels include it from a copy the
# library writes into the kernel cache, so they depend on neither the source tree nor the install
# prefix (docs/jit.md). Editing the header re-runs configure (CMAKE_CONFIGURE_DEPENDS).
set(_cgrad_scalar_hpp ${PROJECT_SOURCE_DIR}/include/cgrad/scalar.hpp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_cgrad_scalar_hpp})
# In raw-string parts of at most 60000 bytes: a string literal over 65536 bytes is more than C++
# compilers must support (clang's -Woverlength-strings).
file(READ ${_cgrad_scalar_hpp} _cgrad_scalar_text)
string(LENGTH "${_cgrad_scalar_text}" _cgrad_scalar_len)
set(CGRAD_SCALAR_HPP_PARTS "")
set(_cgrad_at 0)
while(_cgrad_at LESS _cgrad_scalar_len)
  string(SUBSTRING "${_cgrad_scalar_text}" ${_cgrad_at} 60000 _cgrad_part)
  string(APPEND CGRAD_SCALAR_HPP_PARTS "      R\"cg_scalar_hpp(${_cgrad_part})cg_scalar_hpp\",\n")
  math(EXPR _cgrad_at "${_cgrad_at} + 60000")
endwhile()
configure_file(${CMAKE_CURRENT_LIST_DIR}/scalar_header.cpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/cgrad_jit_scalar_header.cpp @ONLY)
target_sources(cgrad_jit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/spawn.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/generated/cgrad_jit_scalar_header.cpp)
target_link_libraries(cgrad_jit PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
target_link_libraries(cgrad_runtime PUBLIC ${CMAKE_DL_LIBS})
