import Synchronization
import Testing
@testable import GeotagTool

@Suite("Progress line")
struct ProgressLineTests {
    /// What was written, and a clock the test moves.
    final class Terminal: Sendable {
        let output = Mutex("")
        let time = Mutex(ContinuousClock.now)

        func line(_ mode: ProgressLine.Mode) -> ProgressLine {
            ProgressLine(mode: mode, now: { self.time.withLock { $0 } }, write: { text in self.output.withLock { $0 += text } })
        }

        func advance(_ seconds: Int) {
            time.withLock { $0 += .seconds(seconds) }
        }

        var written: String { output.withLock { $0 } }
    }

    @Test func onATerminalOneLineRewrittenInPlaceAndErasedAtTheEnd() {
        let terminal = Terminal()
        let line = terminal.line(.terminal(columns: 80))
        line.show("scanning 1/21 photos (DSC0001.JPG)")
        line.show("scanning 2/21 photos (DSC0002.JPG)")
        #expect(terminal.written == "\rscanning 1/21 photos (DSC0001.JPG)\u{1B}[K\rscanning 2/21 photos (DSC0002.JPG)\u{1B}[K")
        line.finish()
        #expect(terminal.written.hasSuffix("(DSC0002.JPG)\u{1B}[K\r\u{1B}[K"))
        // Nothing to erase a second time, nor when nothing was shown.
        line.finish()
        #expect(terminal.written.hasSuffix("(DSC0002.JPG)\u{1B}[K\r\u{1B}[K"))
        let quiet = Terminal()
        quiet.line(.terminal(columns: 80)).finish()
        #expect(quiet.written.isEmpty)
    }

    @Test func aLineWiderThanTheTerminalIsCutSoThatItDoesNotWrap() {
        let terminal = Terminal()
        let line = terminal.line(.terminal(columns: 20))
        line.show("scanning 12/21 photos (100CANON/IMG_0012.JPG)")
        #expect(terminal.written == "\rscanning 12/21 pho…\u{1B}[K")
    }

    @Test func inALogAPlainLineAtMostOncePerInterval() {
        let log = Terminal()
        let line = log.line(.log(interval: .seconds(10)))
        line.show("scanning 1/21 photos (DSC0001.JPG)")
        log.advance(9)
        line.show("scanning 2/21 photos (DSC0002.JPG)")
        #expect(log.written.isEmpty)
        log.advance(1)
        line.show("scanning 3/21 photos (DSC0003.JPG)")
        log.advance(5)
        line.show("scanning 4/21 photos (DSC0004.JPG)")
        log.advance(5)
        line.show("scanning 5/21 photos (DSC0005.JPG)")
        line.finish()
        #expect(log.written == "scanning 3/21 photos (DSC0003.JPG)\nscanning 5/21 photos (DSC0005.JPG)\n")
    }
}
