import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import ServiceTestSupport
import Testing

/// `include_synthetic` as every researcher list and export reads it (docs/operations.md, "Synthetic data"): study data
/// alone unless asked, and a clear 400 for anything but the three words.
@Suite("include_synthetic")
struct SyntheticFilterTests {
    @Test func absentLeavesSyntheticRecordsOut() throws {
        #expect(try RoutedRequests.read(AccountsQuery.self).synthetic == .exclude)
        #expect(try RoutedRequests.read(MeasurementExportQuery.self).synthetic.wanted == false)
        #expect(try RoutedRequests.read(SyntheticQuery.self, query: ["other": ["x"]]).synthetic == .exclude)
    }

    @Test(arguments: [("false", SyntheticFilter.exclude, false as Bool?), ("true", .include, nil), ("only", .only, true)])
    func eachWordSaysWhichRowsCount(text: String, filter: SyntheticFilter, wanted: Bool?) throws {
        let query = ["include_synthetic": [text]]
        #expect(try RoutedRequests.read(DevicesQuery.self, query: query).synthetic == filter)
        #expect(try RoutedRequests.read(OpenSenseExportQuery.self, query: query).synthetic == filter)
        #expect(try RoutedRequests.read(VaultUsersQuery.self, query: query).synthetic == filter)
        #expect(try RoutedRequests.read(SubmissionExportQuery.self, query: query).range.synthetic == filter)
        #expect(try RoutedRequests.read(LemonAppsQuery.self, query: query).synthetic == filter)
        #expect(filter.wanted == wanted)
    }

    @Test(arguments: [["yes"], ["TRUE"], [""], ["1"], ["true", "false"]])
    func anythingElseIsA400(values: [String]) {
        let problem = RoutedRequests.problem(AccountsQuery.self, query: ["include_synthetic": values])
        let expected =
            values.count > 1
            ? ["400", "Give the query parameter 'include_synthetic' once, not 2 times"] : ["400", "include_synthetic must be true, false or only"]
        #expect(problem == expected)
        #expect(RoutedRequests.problem(SubmissionRange.self, query: ["include_synthetic": values]) == expected)
    }

    /// The gateway forwards a typed input as it encodes it (the console, a stream's next page): the filter survives.
    @Test(arguments: SyntheticFilter.allCases)
    func theFilterSurvivesBeingForwarded(filter: SyntheticFilter) throws {
        let encoded = try JSONValueEncoder().encode(MeasurementExportQuery(synthetic: filter, cursor: "1:2:3"))
        let decoded = try MeasurementExportQuery.decoding.decode(MeasurementExportQuery.self, from: encoded)
        #expect(decoded.synthetic == filter && decoded.cursor == "1:2:3")
    }

    @Test func anAppInstanceIsNamedByItsUUID() throws {
        #expect(
            try RoutedRequests.read(LemonAppByID.self, path: ["device_id": "0B8E4A52-5D0C-4F1E-9D35-3A1C2F6E7B90"]).deviceID
                == "0b8e4a52-5d0c-4f1e-9d35-3a1c2f6e7b90")
        #expect(
            RoutedRequests.problem(LemonAppByID.self, path: ["device_id": "x"])?.last
                == "device_id must be a UUID, as the app's handshake answered it")
        #expect(RoutedRequests.problem(LemonAppsQuery.self, query: ["after": ["x"]]) != nil)
    }
}
