import ArgumentParser

/// `custodian rotate`: replaces a deployment secret without a failed request (docs/operations.md, "Rotating the
/// sealing key", "Rotating database passwords", "Rotating admin tokens and the RPC certificates").
struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a deployment secret without a failed request.",
        subcommands: [SealingKeyRotation.self, RotateDatabasePassword.self, RotateRPCAuthority.self])
}
