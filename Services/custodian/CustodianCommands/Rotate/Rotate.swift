import ArgumentParser

/// `custodian rotate`: replaces a secret of a running platform without a failed request (docs/operations.md,
/// "Rotating secrets").
struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a secret of a running platform without a failed request.",
        subcommands: [RotateDatabasePassword.self, RotateRPCAuthority.self])
}
