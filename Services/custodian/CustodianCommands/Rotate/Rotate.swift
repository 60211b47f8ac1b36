import ArgumentParser

/// `custodian rotate`: replaces a deployment secret without downtime (docs/operations.md).
struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a deployment secret without downtime.",
        subcommands: [SealingKeyRotation.self])
}
