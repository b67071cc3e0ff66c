# -*- Python -*-
# Runs the GoogleTest unit tests; each TEST() counts as one lit test.

import lit.formats

config.name = "TILE-Unit"
config.test_source_root = config.tile_unittests_dir
config.test_exec_root = config.tile_unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
