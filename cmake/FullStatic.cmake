#===- FullStatic.cmake - Link tools against static LLVM/MLIR only ---------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Debian's exported MLIR targets are static archives that link the shared
# libLLVM.so (and some, e.g. MLIROptLib's users, libMLIR.so). A tool linked
# that way needs the 257 MB shared pair at run time and may load MLIR twice.
# This rewrites the imported targets after find_package so that every
# reference to the shared libraries becomes one group of all static LLVM and
# MLIR archives; tools then depend on libc and libm only,
# start in ~3 ms, and can be carried to a machine without LLVM.
#===-----------------------------------------------------------------------===#

set(LLVM_LINK_LLVM_DYLIB OFF)
set(MLIR_LINK_MLIR_DYLIB OFF)

get_directory_property(_tile_imported IMPORTED_TARGETS)
set(_tile_archives)
foreach(_t IN LISTS _tile_imported)
  get_target_property(_type ${_t} TYPE)
  if(NOT _type STREQUAL "STATIC_LIBRARY" OR NOT _t MATCHES "^(LLVM|MLIR)")
    continue()
  endif()
  if(_t MATCHES "(BOLT|Exegesis|Fuzz|TableGen|Tblgen|Test|CAPI|PDLL|Lsp|Reduce|Query|MlirOptMain|OptDriver|Debuginfod)")
    continue()
  endif()
  foreach(_cfg RELWITHDEBINFO RELEASE NOCONFIG DEBUG)
    get_target_property(_loc ${_t} IMPORTED_LOCATION_${_cfg})
    if(_loc)
      list(APPEND _tile_archives ${_loc})
      break()
    endif()
  endforeach()
endforeach()

find_library(TILE_LIBZ_STATIC libz.a REQUIRED)
find_library(TILE_LIBZSTD_STATIC libzstd.a REQUIRED)
add_library(TileStaticWorld INTERFACE)
target_link_libraries(TileStaticWorld INTERFACE
  -Wl,--start-group ${_tile_archives} -Wl,--end-group
  ${TILE_LIBZSTD_STATIC} ${TILE_LIBZ_STATIC} pthread dl m rt)
list(LENGTH _tile_archives _tile_count)
message(STATUS "Static LLVM/MLIR: ${_tile_count} archives")

foreach(_t IN LISTS _tile_imported)
  get_target_property(_libs ${_t} INTERFACE_LINK_LIBRARIES)
  if(NOT _libs)
    continue()
  endif()
  list(TRANSFORM _libs REPLACE "^\\$<LINK_ONLY:(LLVM|MLIR)>$" "TileStaticWorld")
  list(TRANSFORM _libs REPLACE "^(LLVM|MLIR)$" "TileStaticWorld")
  list(TRANSFORM _libs REPLACE "zstd::libzstd_shared" "${TILE_LIBZSTD_STATIC}")
  list(TRANSFORM _libs REPLACE "^ZLIB::ZLIB$" "${TILE_LIBZ_STATIC}")
  list(FILTER _libs EXCLUDE REGEX "libz3|LibEdit|libedit|libxml2|LibXml2|ffi")
  set_target_properties(${_t} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
endforeach()

string(APPEND CMAKE_EXE_LINKER_FLAGS
  " -static-libstdc++ -static-libgcc -Wl,--gc-sections")
