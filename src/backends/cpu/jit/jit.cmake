# The CPU JIT layer's extra sources (included from src/CMakeLists.txt after cgrad_layer(cgrad_jit)).
# include/cgrad/scalar.hpp is embedded as a string: generated kernels include it from a copy the
# library writes into the kernel cache, so they depend on neither the source tree nor the install
# prefix (docs/jit.md). Editing the header re-runs configure (CMAKE_CONFIGURE_DEPENDS).
set(_cgrad_scalar_hpp ${PROJECT_SOURCE_DIR}/include/cgrad/scalar.hpp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_cgrad_scalar_hpp})
file(READ ${_cgrad_scalar_hpp} CGRAD_SCALAR_HPP_TEXT)
configure_file(${CMAKE_CURRENT_LIST_DIR}/scalar_header.cpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/cgrad_jit_scalar_header.cpp @ONLY)
target_sources(cgrad_jit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/spawn.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/generated/cgrad_jit_scalar_header.cpp)
target_link_libraries(cgrad_jit PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
target_link_libraries(cgrad_runtime PUBLIC ${CMAKE_DL_LIBS})
