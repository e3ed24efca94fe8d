#pragma once

// A rule's documentation as `gpulint explain` prints it and the language server's hover shows
// it (Markdown): title, summary, family, default, fix hints and the rule's docs.

#include <string>

#include "analyzer/core/rule.h"

namespace gpulint {

std::string explain_text(const RuleInfo& info);

}  // namespace gpulint
