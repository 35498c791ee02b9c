# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SDFG"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sdfg_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Install"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.sdfg_tools_dir, config.llvm_tools_dir]
tools = ["sdfg-opt", "sdfg-translate", "llvm-nm", "llvm-readelf", "not", "count",
         "opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
config.substitutions.append(("%python", config.python_executable))

# GPU code generation needs the CUDA toolkit (ptxas) at configure time; the
# tests that compile kernels are unsupported without it (never on CI, which
# has the toolkit). Nothing here needs a GPU.
if config.sdfg_enable_gpu == "ON" and os.path.exists(config.sdfg_ptxas):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%ptxas", config.sdfg_ptxas))
