// `llmon diagnose --explain` (docs/diagnosis.md "Explanations"): a diagnosis
// turned into an OpenAI-compatible chat-completions request, and the
// model's answer read back. Pure: the command does the HTTP, and only when
// --explain and --diagnose.llm.url are both given.
//
// The request: {"model", "temperature": 0.2, "max_tokens": 800, "messages":
// [system, user]}; the system message sets the task (explain to an ML
// engineer what the findings mean, in which order to act, citing the
// evidence, inventing nothing beyond it); the user message holds the
// window, the node summary and every finding with its severity, subject,
// summary, evidence (query, value, meaning) and playbook step, as JSON.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "diagnose/diagnose.h"

namespace llmon::diagnose {

std::string explain_request(const Diagnosis& d, std::string_view model);

// choices[0].message.content; an error naming what is missing, or the
// server's own error message ({"error": {"message": ...}}).
Expected<std::string> explain_answer(std::string_view response_body);

// Where to post: a URL ending in /chat/completions as given; otherwise
// /v1/chat/completions under it (a trailing /v1 is not repeated). The same
// rule gives /v1/models for models_url.
std::string chat_completions_url(std::string_view base);
std::string models_url(std::string_view base);
// The first model id of a /v1/models answer, or an error.
Expected<std::string> first_model(std::string_view response_body);

}  // namespace llmon::diagnose
