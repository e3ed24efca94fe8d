#include "analyzer/core/selection.h"

#include "analyzer/core/suggest.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace gpulint {
namespace {

bool matches(std::string_view selector, std::string_view code) {
  return selector == "ALL" || code.starts_with(selector);
}

size_t specificity(std::string_view selector) { return selector == "ALL" ? 0 : selector.size(); }

void check_known(std::span<const Rule* const> rules, const std::vector<std::string>& selectors) {
  for (const std::string& s : selectors) {
    bool any = std::any_of(rules.begin(), rules.end(),
                           [&](const Rule* r) { return matches(s, r->info.code); });
    if (!any) {
      throw std::invalid_argument("unknown rule selector `" + s + "`" +
                                  did_you_mean(s, selector_words(rules)));
    }
  }
}

}  // namespace

std::string normal_selector(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  text = text.substr(begin, text.find_last_not_of(" \t") + 1 - begin);
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> selector_words(std::span<const Rule* const> rules) {
  std::vector<std::string> out{"ALL"};
  for (const Rule* r : rules) {
    out.emplace_back(r->info.code);
    // Prefixes a selector can name: `GL1`, `GL10`.
    for (size_t n = 3; n < r->info.code.size(); ++n) out.emplace_back(r->info.code.substr(0, n));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> split_codes(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& value : values) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      std::string item = normal_selector(value.substr(start, comma - start));
      if (!item.empty()) out.push_back(item);
      start = comma + 1;
    }
  }
  return out;
}

Selection Selection::parse(std::span<const Rule* const> rules,
                           const std::vector<std::string>& select,
                           const std::vector<std::string>& ignore) {
  SelectionLayer layer;
  if (!select.empty()) layer.select = select;
  layer.ignore = ignore;
  return resolve(rules, {layer});
}

Selection Selection::resolve(std::span<const Rule* const> rules,
                             const std::vector<SelectionLayer>& layers) {
  std::vector<bool> on(rules.size());
  for (size_t i = 0; i < rules.size(); ++i) on[i] = rules[i]->info.default_on;
  std::vector<std::string> earlier_ignores;
  for (const SelectionLayer& layer : layers) {
    if (layer.select) check_known(rules, *layer.select);
    check_known(rules, layer.extend_select);
    check_known(rules, layer.ignore);
    for (size_t i = 0; i < rules.size(); ++i) {
      const std::string_view code = rules[i]->info.code;
      if (layer.select) {
        size_t named = 0;  // how specifically the select names this rule, 0: not at all
        bool selected = false;
        for (const std::string& s : *layer.select) {
          if (!matches(s, code)) continue;
          selected = true;
          named = std::max(named, specificity(s));
        }
        for (const std::string& s : earlier_ignores) {
          if (selected && matches(s, code) && specificity(s) > named) selected = false;
        }
        on[i] = selected;
      }
      for (const std::string& s : layer.extend_select) {
        if (matches(s, code)) on[i] = true;
      }
      for (const std::string& s : layer.ignore) {
        if (matches(s, code)) on[i] = false;
      }
    }
    earlier_ignores.insert(earlier_ignores.end(), layer.ignore.begin(), layer.ignore.end());
  }
  Selection selection;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (on[i]) selection.enabled_.push_back(rules[i]);
  }
  return selection;
}

bool Selection::enabled(std::string_view code) const {
  return std::any_of(enabled_.begin(), enabled_.end(),
                     [&](const Rule* r) { return r->info.code == code; });
}

}  // namespace gpulint
