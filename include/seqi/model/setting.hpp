// The attention rule a transformer is run and certified with.
#pragma once

namespace seqi {

enum class Setting { hardmax, softmax };

// "hardmax" or "softmax": the name used in summaries, JSON and certificates.
constexpr const char* setting_name(Setting s) { return s == Setting::softmax ? "softmax" : "hardmax"; }

}  // namespace seqi
