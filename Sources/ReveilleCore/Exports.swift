// The rules (and through them the model) are part of Core's vocabulary: whoever uses Core
// (the agent, the CLI, the wake helper) uses the rules' and the model's types with it.
@_exported import ReveilleRules
// The system calls' typed wrappers (`FileStatus`, `FileDescriptor.sync` ...) are Core's too.
@_exported import ReveilleSystem
