import CustodianRPC

extension PrincipalRequirement {
    /// The tracing app's methods, in auth and statistics: the LEMON API answers every token problem alike.
    public static let lemonApp = PrincipalRequirement.only(.app, refusing: .unauthenticated("Missing or Invalid JWT"))
}
