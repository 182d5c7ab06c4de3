#pragma once

// base64 with the standard alphabet and '=' padding (RFC 4648 §4): the encoding of the
// *-data fields of a kubeconfig and of the simulator's continue tokens.

#include <optional>
#include <string>
#include <string_view>

namespace podwait {

// Encodes with padding.
std::string Base64Encode(std::string_view data);

// Decodes padded standard base64. Line breaks, spaces and tabs anywhere are skipped (kubeconfigs
// written by hand or folded by an editor carry them). Returns nullopt for anything else: a
// character outside the alphabet (the URL alphabet's '-' and '_' included), a length that is not
// a multiple of four, or '=' other than at the end.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace podwait
