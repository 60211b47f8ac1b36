import ArgumentParser

/// `custodian rotate`: replaces a deployment secret without a failed request (docs/operations.md, "Rotating the
/// sealing key", "Rotating database passwords", "Rotating admin tokens and the RPC certificates", "Rotating the JWT signing key").
struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a deployment secret without a failed request.",
        subcommands: [SealingKeyRotation.self, JWTKeyRotation.self, RotateDatabasePassword.self, RotateRPCAuthority.self])
}
