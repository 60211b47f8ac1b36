/// `--probe live|ready` on a process's command line: the process checks one running copy of itself, as an
/// orchestrator's exec probe (Kubernetes, a compose healthcheck) asks, and exits 0 or 1 instead of starting.
public enum ProbeKind: String, Sendable, CaseIterable {
    /// The process answers at all.
    case live
    /// It answers and can do its work (a service reaches its database; the gateway answers `/readyz`).
    case ready

    /// The probe asked for on the command line, and the other arguments. Only the flag starts one: a setting in the
    /// environment must never turn a process into its own probe.
    public static func requested(in arguments: [String]) throws -> (ProbeKind, [String])? {
        try OneShotFlag.requested("--probe", in: arguments)
    }
}

/// A flag that makes a process ask a running copy of itself something and exit instead of starting (`--probe ready`,
/// `--sealing report`): written `--flag value` or `--flag=value`, its value one of `Value`'s cases.
public enum OneShotFlag {
    /// The value of `flag` on the command line and the other arguments, or nil when the flag is not there.
    public static func requested<Value: RawRepresentable & CaseIterable>(_ flag: String, in arguments: [String]) throws -> (Value, [String])?
    where Value.RawValue == String {
        guard let index = arguments.firstIndex(where: { $0 == flag || $0.hasPrefix(flag + "=") }) else { return nil }
        let choices = Value.allCases.map(\.rawValue).joined(separator: " or ")
        var rest = arguments
        let value: String
        if arguments[index].hasPrefix(flag + "=") {
            value = String(arguments[index].dropFirst(flag.count + 1))
            rest.remove(at: index)
        } else {
            guard index + 1 < arguments.count else { throw ConfigurationError(message: "\(flag) needs \(choices)") }
            value = arguments[index + 1]
            rest.removeSubrange(index...(index + 1))
        }
        guard let parsed = Value(rawValue: value) else { throw ConfigurationError(message: "\(flag) needs \(choices), not '\(value)'") }
        return (parsed, rest)
    }
}
