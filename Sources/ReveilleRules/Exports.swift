// The rules are about the model's types: whoever uses the rules uses the model with them.
@_exported import ReveilleModel
