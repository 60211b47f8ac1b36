import CustodianJSON
import CustodianRPC
import Yams

/// docs/openapi.yaml as the JSON text `/openapi.json` has always served: keys in the document's order, no spaces,
/// non-ASCII as it is, a key given twice keeping its first place and its last value. That is what Python's
/// `json.dumps(yaml.safe_load(text), ensure_ascii=False, separators=(",", ":"))` wrote when a script made the copy, and
/// OpenAPIDocumentTests hold the two to the same bytes. Deploy/dev/validate-openapi.sh reads the document with PyYAML
/// too, so the values it validates are the values served.
enum OpenAPIJSON {
    /// PyYAML's YAML 1.1 types for plain scalars, where Yams' defaults differ (a float needs its point and a signed
    /// exponent, `1e5` is a string; an octal is `017`, not `0o17`). A timestamp, which JSON cannot hold, stays a string.
    static func resolver() throws -> Resolver {
        try Resolver.default
            .replacing(
                .float,
                with: #"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"#
                    + #"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"#
            )
            .replacing(
                .int,
                with: #"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"#
                    + #"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"#)
    }

    static func bytes(fromYAML yaml: [UInt8]) throws -> [UInt8] {
        guard let root = try Yams.compose(yaml: String(decoding: yaml, as: UTF8.self), resolver()) else {
            throw OpenAPIJSONError("the document is empty")
        }
        var output: [UInt8] = []
        output.reserveCapacity(yaml.count)
        try write(root, into: &output)
        return output
    }

    static func write(_ node: Node, into output: inout [UInt8]) throws {
        switch node {
        case .scalar(let scalar):
            try write(scalar, into: &output)
        case .sequence(let sequence):
            output.append(UInt8(ascii: "["))
            for (index, item) in sequence.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .mapping(let mapping):
            var keys: [String] = []
            var values: [String: Node] = [:]
            for (key, value) in mapping {
                guard case .scalar(let scalar) = key else { throw OpenAPIJSONError("a key that is not a scalar, at line \(key.mark?.line ?? 0)") }
                let name = try keyText(scalar)
                if values.updateValue(value, forKey: name) == nil { keys.append(name) }
            }
            output.append(UInt8(ascii: "{"))
            for (index, key) in keys.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.write(key, into: &output)
                output.append(UInt8(ascii: ":"))
                try write(values[key]!, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func write(_ scalar: Node.Scalar, into output: inout [UInt8]) throws {
        switch resolvedTag(scalar) {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool:
            output.append(contentsOf: (try value(Bool.construct(from: scalar), scalar) ? "true" : "false").utf8)
        case .int:
            output.append(contentsOf: String(try value(Int.construct(from: scalar), scalar)).utf8)
        case .float:
            output.append(contentsOf: number(try value(Double.construct(from: scalar), scalar)).utf8)
        default:
            JSONValue.write(scalar.string, into: &output)
        }
    }

    /// A mapping key as JSON has it, a string: what Python's `json.dumps` makes of a key YAML typed otherwise.
    private static func keyText(_ scalar: Node.Scalar) throws -> String {
        switch resolvedTag(scalar) {
        case .null: "null"
        case .bool: try value(Bool.construct(from: scalar), scalar) ? "true" : "false"
        case .int: String(try value(Int.construct(from: scalar), scalar))
        case .float: number(try value(Double.construct(from: scalar), scalar))
        default: scalar.string
        }
    }

    /// The type YAML 1.1 gives a scalar (a quoted one is always a string).
    private static func resolvedTag(_ scalar: Node.Scalar) -> Tag.Name {
        Tag.Name(rawValue: Node.scalar(scalar).tag.description)
    }

    /// Python's `repr` of a float: the shortest text that reads back the same (Swift's too), `1.0` with its `.0`.
    private static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return value.description
    }

    private static func value<T>(_ constructed: T?, _ scalar: Node.Scalar) throws -> T {
        guard let constructed else { throw OpenAPIJSONError("'\(scalar.string)' is not a \(T.self), at line \(scalar.mark?.line ?? 0)") }
        return constructed
    }
}

struct OpenAPIJSONError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = "docs/openapi.yaml: " + description }
}
