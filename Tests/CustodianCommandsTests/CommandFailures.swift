import ArgumentParser
import Foundation
import Testing

@testable import CustodianCommands

/// How `custodian ARGUMENTS` stops before it reaches a server or a database: the error its parsing (the options'
/// own `validate()` included) or its `run()` throws, as the command line would print it; nil when it succeeded.
func failure(_ arguments: [String]) async -> String? {
    let command: any ParsableCommand
    do {
        command = try Custodian.parseAsRoot(arguments)
    } catch {
        return Custodian.message(for: error)
    }
    do {
        try await Custodian.runParsed(command)
        return nil
    } catch let error as ValidationError {
        return error.message
    } catch {
        return "\(error)"
    }
}

/// A fresh folder for one test, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("custodian-commands-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// The permission bits of a file or folder.
func mode(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
}

/// The tests that read an option's default from the environment need it unset, as it is for a newcomer's shell.
func unset(_ names: String...) -> Bool {
    names.allSatisfy { ProcessInfo.processInfo.environment[$0] == nil }
}
