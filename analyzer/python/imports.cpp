// Imports, and the modules and functions a name reaches through them; and what a call hands
// the functions of other modules (a call's result, a loader, the model), for the linker.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/python/builder.h"
#include "analyzer/python/names.h"

namespace gpulint::python {

void Builder::on_import(Node n) {
  std::string module;
  if (is(n, s_.import_from_statement)) {
    Node m = field(n, s_.f_module_name);
    module = null(m) ? "" : std::string(text(m));
  }
  for (Node name = n.first_child(); !name.null(); name = name.next_sibling()) {
    // `from utils import *`: any name not defined here may be that module's.
    if (!module.empty() && is(name, s_.wildcard_import)) star_modules_.push_back(module);
    if (name.field() != s_.f_name) continue;
    Node alias{};
    if (is(name, s_.aliased_import)) {
      alias = field(name, s_.f_alias);
      name = field(name, s_.f_name);
    }
    if (null(name)) continue;
    Import imp;
    imp.span = span(n);
    if (module.empty()) {
      imp.module = std::string(text(name));
      // `import a.b` binds `a`; `import a.b as c` binds `c` to a.b.
      imp.local =
          null(alias) ? imp.module.substr(0, imp.module.find('.')) : std::string(text(alias));
      if (null(alias)) imp.module = imp.local;
    } else {
      imp.module = module;
      imp.symbol = std::string(text(name));
      imp.local = null(alias) ? imp.symbol : std::string(text(alias));
    }
    // `try: from torch.amp import GradScaler` / `except ImportError: from torch.cuda.amp import
    // GradScaler`: the handler's import is the fallback for old versions, and the name is the
    // current API's wherever it is used.
    if ((module == "torch.cuda.amp" || module == "torch.cpu.amp") && !in_handler(n)) {
      deprecated_amp_names_.insert(imp.local);
    } else if (module == "torch.amp" || module == "torch") {
      deprecated_amp_names_.remove(imp.local);
    }
    import_by_local_[imp.local] = m_.imports.size();
    m_.imports.push_back(std::move(imp));
  }
}

bool Builder::in_handler(Node n) const {
  for (Node a = n.parent(); !null(a) && !is(a, s_.function_definition); a = a.parent()) {
    if (is(a, s_.except_clause)) return true;
  }
  return false;
}

std::optional<int64_t> Builder::inbound_constant(const std::string& name) const {
  for (const auto& [local, value] : inbound_.constants) {
    if (local == name) return value;
  }
  return std::nullopt;
}

// The module and function a call names through this file's imports: `log(...)` after
// `from .utils import log`, `engine.step(...)` after `import engine` or
// `from pkg import engine`. Torch and other libraries resolve too; the engine drops what no
// analysed file defines.
std::optional<std::pair<std::string, std::string>> Builder::imported_target(
    std::string_view callee) const {
  const size_t dot = callee.find('.');
  const auto found = import_by_local_.find(callee.substr(0, dot));
  if (found == import_by_local_.end()) return std::nullopt;
  const Import& imp = m_.imports[found->second];
  if (dot == std::string::npos) {
    if (imp.symbol.empty()) return std::nullopt;  // `import f; f()`: a module is not called
    return std::make_pair(imp.module, imp.symbol);
  }
  // Built in one allocation: every dotted call of an imported name (`torch.zeros`) comes here.
  const size_t last = callee.rfind('.');
  const bool joined = !imp.symbol.empty() && !imp.module.ends_with('.');
  std::string module;
  module.reserve(imp.module.size() + joined + imp.symbol.size() + (last - dot));
  module.append(imp.module);
  if (joined) module.push_back('.');
  module.append(imp.symbol);
  if (last > dot) module.append(callee.substr(dot, last - dot));
  return std::make_pair(std::move(module), std::string(callee.substr(last + 1)));
}

// Arguments holding another call's result, a loader of this file or its model, for the linker
// (see ArgumentFlow, HandedArgument).
void Builder::note_flows(std::string_view callee, const Args& args) {
  // Only calls of imported functions are linked (finish()).
  auto imported = [&](std::string_view name) {
    return !import_by_local_.empty() && import_by_local_.count(name.substr(0, name.find('.')));
  };
  if (!imported(callee)) return;
  // What returned the argument: `data` after `data = load_data()`, or `load_data()` itself.
  auto source = [&](Node arg) -> std::string_view {
    if (is(arg, s_.call)) {
      const std::string_view inner = callee_name(arg);
      return imported(inner) ? inner : std::string_view{};
    }
    if (!is(arg, s_.identifier)) return {};
    auto it = call_results_.find(text(arg));
    return it == call_results_.end() ? std::string_view{} : std::string_view(it->second);
  };
  auto hand = [&](Node arg, int32_t position, std::string_view keyword) {
    if (!is(arg, s_.identifier)) return;
    const std::string_view name = text(arg);
    const bool loader = loader_names_.count(name) > 0;
    if (!loader && !model_names_.count(name)) return;
    pending_arguments_.push_back({std::string(callee), position, std::string(keyword),
                                  loader ? Handed::Loader : Handed::Model, std::string(name)});
  };
  for (size_t i = 0; i < args.positional.size() && !args.list_splat; ++i) {
    const auto position = static_cast<int32_t>(i);
    if (const std::string_view from = source(args.positional[i]); !from.empty())
      pending_flows_.push_back({std::string(callee), position, {}, std::string(from)});
    hand(args.positional[i], position, {});
  }
  for (const auto& [name, value] : args.keywords) {
    if (const std::string_view from = source(value); !from.empty())
      pending_flows_.push_back({std::string(callee), -1, std::string(name), std::string(from)});
    hand(value, -1, name);
  }
}

}  // namespace gpulint::python
