#===- AddTile.cmake - Thin wrappers over MLIR's CMake helpers -------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# All compiler libraries go through add_tile_library so that tools can link
# "everything tile" through the TILE_LIBS global property.
#===-----------------------------------------------------------------------===#

function(add_tile_library name)
  add_mlir_library(${ARGV})
  set_property(GLOBAL APPEND PROPERTY TILE_LIBS ${name})
endfunction()

function(add_tile_tool name)
  add_llvm_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  llvm_update_compile_flags(${name})
  mlir_check_all_link_libraries(${name})
endfunction()
