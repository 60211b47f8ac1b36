import CustodianContracts
import Testing

@Suite("Export time bounds")
struct ExportTimeBoundTests {
    @Test func aPlusReadAsASpaceBeforeAnOffsetIsAPlusAgain() {
        #expect(ResearcherExport.timeBound("2026-11-22T04:40:00 00:00") == "2026-11-22T04:40:00+00:00")
        #expect(ResearcherExport.timeBound("2026-11-22T04:40:00.5 0100") == "2026-11-22T04:40:00.5+0100")
        #expect(ResearcherExport.timeBound("2026-11-22T04:40:00 02") == "2026-11-22T04:40:00+02")
        // Nothing else changes: a minus offset, Z, unix seconds, a space that is not before an offset.
        for text in [
            "2026-11-22T04:40:00-05:00", "2026-11-22T04:40:00Z", "1700000000", "2020-03-29 13:00:09", "2020-03-29 13:00", "yesterday 12:00", " 00:00",
        ] {
            #expect(ResearcherExport.timeBound(text) == text)
        }
    }
}
