import ArgumentParser

/// `custodian rotate …`: replaces a secret of a running platform without downtime (docs/operations.md).
struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rotates a key of a running platform without downtime.",
        subcommands: [JWTKeyRotation.self])
}
