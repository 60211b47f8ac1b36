import Foundation
import GeotagTool
import Testing

@testable import CustodianCommands

/// What the commands print and write for people and for PostgreSQL.
@Suite("output formats")
struct OutputFormatTests {
    /// `lemon call` lays the answer out as sent: the server's key order, numbers and strings untouched.
    @Test func indentedJSONKeepsTheServersTextAndOrder() {
        let answer = #"{"b":52.0907,"a":[],"c":{"d":"x, {y}: [z]","e":"say \"hi\", {"},"f":[1, 2],"g":{ }}"#
        #expect(
            IndentedJSON.format(Array(answer.utf8)) == #"""
                {
                  "b": 52.0907,
                  "a": [],
                  "c": {
                    "d": "x, {y}: [z]",
                    "e": "say \"hi\", {"
                  },
                  "f": [
                    1,
                    2
                  ],
                  "g": {}
                }
                """#)
    }

    /// COPY's text format: a value with a tab, line break or backslash stays one value, and nil is NULL.
    @Test func copyRowsEscapeWhatWouldSplitAValue() {
        var rows = CopyRows()
        rows.append(Int64(7))
        rows.append("tab\there, line\nbreak, return\r, back\\slash")
        rows.append(nil)
        rows.endRow()
        rows.append("second")
        rows.endRow()
        #expect(String(buffer: rows.buffer) == "7\ttab\\there, line\\nbreak, return\\r, back\\\\slash\t\\N\nsecond\n")
    }

    /// `geotag`'s closing table: columns padded to the widest cell, a skipped photo's reason running on.
    @Test func theGeotagSummaryLinesUpItsColumns() {
        let plan = [
            PlannedPhoto(
                name: "IMG_0001.JPG", correctedTime: 1_764_000_005,
                action: .tag(GPSTags(position: GeoPosition(latitude: 52.09073, longitude: 5.12142, altitude: 4.26), time: 1_764_000_005))),
            PlannedPhoto(name: "b.jpg", correctedTime: nil, action: .skip("no capture time")),
            PlannedPhoto(
                name: "c.jpg", correctedTime: 1_764_000_100,
                action: .tag(GPSTags(position: GeoPosition(latitude: -33.9, longitude: 18.4, altitude: nil), time: 1_764_000_100))),
        ]
        #expect(
            SummaryTable(plan).text == """
                file          time (UTC)            latitude     longitude   altitude
                IMG_0001.JPG  2025-11-24T16:00:05Z  52.0907300   5.1214200   4.3 m
                b.jpg         -                     skipped: no capture time
                c.jpg         2025-11-24T16:01:40Z  -33.9000000  18.4000000  -
                """)
    }
}

/// The files the command line writes: secrets readable by their owner only, and never through another's file.
@Suite("files")
struct FilesTests {
    @Test func aSecretIsMadeOwnerOnlyEvenOverAReadableFile() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/admin-token"
            try "old".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            try Files.write("new", to: path)
            #expect(try mode(path) == 0o600)
            #expect(Files.read(path) == "new")
            try Files.makeDirectory(folder + "/a/b")
            #expect(try mode(folder + "/a/b") == 0o700)
        }
    }

    @Test func anExclusiveFileIsNeverWrittenOverAndKeepsItsMode() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/identity.json"
            try Files.create(Array("first".utf8), at: path, mode: 0o600, exclusive: true)
            #expect(try mode(path) == 0o600)
            let error = #expect(throws: Files.WriteError.self) { try Files.create(Array("second".utf8), at: path, mode: 0o600, exclusive: true) }
            #expect(error?.description == "File exists")
            #expect(Files.read(path) == "first")
            try Files.create(Array("third".utf8), at: path, mode: 0o600, exclusive: false)
            #expect(Files.read(path) == "third")
        }
    }

    @Test func relativePathsAreMadeAbsoluteAndTidy() {
        let here = FileManager.default.currentDirectoryPath
        #expect(Files.absolute("data/../.custodian/./secrets") == URL(fileURLWithPath: here + "/.custodian/secrets").standardizedFileURL.path)
        #expect(Files.absolute("/var//lib/custodian/") == "/var/lib/custodian")
    }
}

/// A usage error met while a command runs shows that command's usage, as ArgumentParser does for one met while parsing.
@Suite("usage errors")
struct UsageErrorTests {
    @Test func theSubcommandsOwnUsageIsShown() {
        let text = Custodian.usageError(.init("unknown service 'printer'"), of: Restart.self)
        #expect(
            text == """
                Error: unknown service 'printer'
                Usage: custodian restart <service> [--data-dir <data-dir>]
                  See 'custodian restart --help' for more information.

                """)
        let nested = Custodian.usageError(.init("a name has 1 to 100 characters"), of: Admin.CreateConsumer.self)
        #expect(nested.hasPrefix("Error: a name has 1 to 100 characters\nUsage: custodian admin create-consumer "))
        #expect(nested.hasSuffix("\n  See 'custodian admin create-consumer --help' for more information.\n"))
    }
}
