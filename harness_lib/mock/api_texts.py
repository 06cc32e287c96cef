"""The provider's texts, word for word: what the API answers for each rule it checks.

Each entry is rule -> (message, code, French explication): the English `message` and
`code` exactly as OpenAI's API writes them (rules.py fills {path}, {value}...), and our
explication for learners ({at} is « Message 3 (role tool) »). Where the API's own
wording was not seen, the entry says so; docs/reliability.md lists those cases.

>>> TEXTS["pattern"][1]
'invalid_value'
"""

from __future__ import annotations

from ..messages import RULE_1, RULE_2
from ..text import french_number

# The chapter's two rules, in the words every explanation of the course uses (messages.py).
_RULE_1 = f"{RULE_1.why[0].upper()}{RULE_1.why[1:]} : {RULE_1.says}."
_RULE_2 = f"{RULE_2.says[0].upper()}{RULE_2.says[1:]}."
MAX_CONTENT = 10_485_760  # characters of one text, as the API says in its own error

# The provider's texts, word for word: rule -> (message, code, French explication).
# {path} is where the API points, {at} is "Message 3 (role tool)".
TEXTS: dict[str, tuple[str, str | None, str]] = {
    "messages_type": ("Invalid type for 'messages': expected an array of objects, but got {got} "
                      "instead.", "invalid_type", "{at} doit être une liste de messages, pas "
                      "{got_fr}."),
    "messages_empty": ("Invalid 'messages': empty array. Expected an array with minimum length "
                       "1, but got an empty array instead.", "empty_array", "{at} est vide : il "
                       "faut au moins un message, par exemple la demande de l’utilisateur."),
    "missing": ("Missing required parameter: '{path}'.", "missing_required_parameter",
                "{at} : il manque le champ {field}.{hint}"),
    "type": ("Invalid type for '{path}': expected {expected}, but got {got} instead.",
             "invalid_type", "{at} : {what} doit être {expected_fr}, pas {got_fr}.{hint}"),
    "role": ("Invalid value: '{value}'. Supported values are: 'system', 'assistant', 'user', "
             "'function', 'tool', and 'developer'.", "invalid_value", "{at} : role vaut "
             "« {short} », un rôle qui n’existe pas. Rôles possibles : system, developer, "
             "user, assistant, tool."),
    "empty_calls": ("Invalid '{path}': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead.", "empty_array", "{at} : tool_calls est "
                    "une liste vide. Sans demande d’outil, retirez ce champ."),
    # The same template, for content: the API's wording for this field was not seen.
    "empty_parts": ("Invalid '{path}': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead.", "empty_array", "{at} : content est une "
                    "liste de parties vide. Écrivez un texte, même court, ou une partie "
                    "{{\"type\": \"text\", \"text\": ...}}."),
    "pattern": ("Invalid '{path}': string does not match pattern. Expected a string that matches "
                "the pattern '^[a-zA-Z0-9_-]+$'.", "invalid_value", "{at} : {what} vaut "
                "« {short} » ; seuls les lettres sans accent, chiffres, _ et - sont permis."),
    "too_long": ("Invalid '{path}': string too long. Expected a string with maximum length "
                 f"{MAX_CONTENT}, but got a string with length {{length}} instead.",
                 "string_above_max_length", "{at} : {what} fait {length_fr} caractères, plus "
                 f"que les {french_number(MAX_CONTENT)} que l’API accepte dans un message. "
                 "Coupez-le."),
    "part_type": ("Invalid value: '{value}'. Supported values are: 'text', 'image_url', "
                  "'input_audio', 'refusal', 'audio', and 'file'.", "invalid_value", "{at} : "
                  "{field} vaut « {short} », un type de partie qui n’existe pas. Types "
                  "possibles : text, image_url, input_audio, file (user), refusal (assistant)."),
    # Unknown wording (the OpenAPI spec says so, the API's message was not seen): ours.
    "part_role": ("(harness) '{path}': a '{role}' message accepts only parts of type {allowed}, "
                  "not '{value}'.", "invalid_value", "{at} : {field} vaut « {short} », mais "
                  "un message {role} n’accepte que des parties {allowed}."),
    "call_type": ("Invalid value: '{value}'. Supported values are: 'function' and 'custom'.",
                  "invalid_value", "{at} : {field} vaut « {short} » ; le type "
                  "d’une demande d’outil est « function »."),
    # OpenAI's text for an image outside a user message (its `code` was not seen).
    "image_role": ("Invalid '{path}'. Image URLs are only allowed for messages with role 'user', "
                   "but this message with role '{role}' contains an image URL.", "invalid_value",
                   "{at} : une image (image_url) n’est permise que dans un message user. Pour "
                   "montrer une image au modèle, mettez-la dans un message user après les "
                   "résultats d’outils."),
    # Errors in the logic of the conversation: `param` is "messages.[i].field", code null.
    "content_null": ("Invalid value for 'content': expected a string, got null.", None, "{at} : "
                     "content vaut null. Un message {role} porte toujours un texte, même vide "
                     "(\"\") : un outil qui ne renvoie rien doit renvoyer \"\"."),
    "null": ("Invalid value for 'content': expected a string, got null.", None, "{at} : content "
             "manque ou vaut null, et il n’y a pas de tool_calls. Un message assistant "
             "contient un texte, des demandes d’outil, ou les deux."),
    # OpenAI's wording for this one could not be confirmed: this is the one DeepSeek returns.
    "duplicate": ("Duplicate value for 'tool_call_id' of {value} in message[{i}]", None,
                  "{at} : l’identifiant {short} apparaît deux fois dans tool_calls. Chaque "
                  "demande a son propre id, sinon ses résultats sont ambigus."),
    "duplicate_result": ("Invalid parameter: Duplicate value for 'tool_call_id' of '{value}', "
                         "in messages[{first}] and messages[{i}].", None, "{at} : son "
                         "tool_call_id {short} a déjà reçu un résultat (message {first}). "
                         "Chaque demande reçoit un seul résultat."),
    "orphan": ("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
               "message with 'tool_calls'.", None, "{at} : ce résultat ne répond à aucune "
               "demande, car {before}. " + _RULE_1),
    "no_id": ("Missing parameter 'tool_call_id': messages with role 'tool' must have a "
              "'tool_call_id'.", None, "{at} : le champ tool_call_id manque. Sans lui, on ne sait "
              "pas à quelle demande d’outil ce résultat répond."),
    "not_found": ("Invalid parameter: 'tool_call_id' of '{value}' not found in 'tool_calls' of "
                  "previous message.", None, "{at} : son tool_call_id est {short}, mais le "
                  "message assistant {turn} n’a demandé que {asked}. Chaque résultat doit "
                  "reprendre l’identifiant d’une demande."),
    "unanswered": ("An assistant message with 'tool_calls' must be followed by tool messages "
                   "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                   "response messages: {value}", None, "{at} : il demande {asked}, mais aucun "
                   "message tool ne répond à {short} juste après. " + _RULE_2),
}
