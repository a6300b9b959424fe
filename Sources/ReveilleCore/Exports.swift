// The model is part of Core's vocabulary: whoever uses Core (the agent, the CLI, the wake
// helper) uses the model's types with it.
@_exported import ReveilleModel
