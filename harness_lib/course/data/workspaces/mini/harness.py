"""Le plus petit harness possible (exemple à lire, pas à lancer)."""


def boucle(modele, outils, messages):
    while True:
        reponse = modele(messages)
        messages.append(reponse)
        if not reponse.get("tool_calls"):
            return reponse["content"]
        for appel in reponse["tool_calls"]:
            resultat = outils[appel["function"]["name"]](appel)
            messages.append({"role": "tool", "tool_call_id": appel["id"], "content": resultat})
