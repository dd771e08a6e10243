// The flag key types (defined in base/flag.h, where the collectors below
// config can name their options) under config's names, which the flag
// table, Settings and their callers use.
#pragma once

#include "base/flag.h"

namespace llmon::config {

using base::BoolFlag;
using base::BytesFlag;
using base::DurationFlag;
using base::Flag;
using base::FlagKind;
using base::FlagRef;
using base::IntFlag;
using base::kind_name;
using base::RegexFlag;
using base::StringFlag;

}  // namespace llmon::config
