/// `--probe live|ready` on a process's command line: the process checks one running copy of itself, as an
/// orchestrator's exec probe (Kubernetes, a compose healthcheck) asks, and exits 0 or 1 instead of starting.
public enum ProbeKind: String, Sendable {
    /// The process answers at all.
    case live
    /// It answers and can do its work (a service reaches its database; the gateway answers `/readyz`).
    case ready

    /// The probe asked for on the command line, and the other arguments. Only the flag starts one: a setting in the
    /// environment must never turn a process into its own probe.
    public static func requested(in arguments: [String]) throws -> (ProbeKind, [String])? {
        guard let index = arguments.firstIndex(where: { $0 == "--probe" || $0.hasPrefix("--probe=") }) else { return nil }
        var rest = arguments
        let value: String
        if arguments[index].hasPrefix("--probe=") {
            value = String(arguments[index].dropFirst("--probe=".count))
            rest.remove(at: index)
        } else {
            guard index + 1 < arguments.count else { throw ConfigurationError(message: "--probe needs live or ready") }
            value = arguments[index + 1]
            rest.removeSubrange(index...(index + 1))
        }
        guard let kind = ProbeKind(rawValue: value) else { throw ConfigurationError(message: "--probe needs live or ready, not '\(value)'") }
        return (kind, rest)
    }
}
