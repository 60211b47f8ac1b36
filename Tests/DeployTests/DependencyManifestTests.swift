import Foundation
import Testing

/// Deploy/Dockerfile compiles the dependencies from a manifest derived from Package.swift by
/// Deploy/docker/dependencies-manifest.awk, before any source is copied, so that the layer is reused until a
/// dependency changes. A product missing from it is compiled later, with our code, on every build; a manifest the
/// script misreads breaks the image build. Both show here first.
@Suite("Dockerfile's dependency manifest")
struct DependencyManifestTests {
    static func derived() throws -> String {
        let awk = Process()
        awk.executableURL = URL(fileURLWithPath: "/usr/bin/awk")
        awk.arguments = ["-f", repositoryRoot.appendingPathComponent("Deploy/docker/dependencies-manifest.awk").path,
                         repositoryRoot.appendingPathComponent("Package.swift").path]
        let output = Pipe()
        awk.standardOutput = output
        try awk.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        awk.waitUntilExit()
        #expect(awk.terminationStatus == 0)
        return text
    }

    /// The products the package's targets use, test targets left out, read from the manifest's target blocks.
    static func productsOfNonTestTargets() throws -> Set<String> {
        let manifest = try repositoryFile("Package.swift")
        let targets = manifest.components(separatedBy: "\n        .").filter { !$0.hasPrefix("testTarget(") }
        let product = try NSRegularExpression(pattern: #"\.product\(name: "[^"]+", package: "[^"]+"\)"#)
        return Set(targets.dropFirst().flatMap { block in
            product.matches(in: block, range: NSRange(block.startIndex..., in: block)).map { String(block[Range($0.range, in: block)!]) }
        })
    }

    @Test func theDerivedManifestUsesEveryProductOfThePackagesTargets() throws {
        let derived = try Self.derived()
        let expected = try Self.productsOfNonTestTargets()
        #expect(expected.count > 10, "found \(expected.count) products in Package.swift")
        for product in expected.sorted() {
            #expect(derived.contains(product), "the dependency manifest lacks \(product)")
        }
    }

    @Test func theDerivedManifestHasTheSameDependenciesAndOnlyItsOwnTarget() throws {
        let derived = try Self.derived()
        let manifest = try repositoryFile("Package.swift")
        let dependency = try NSRegularExpression(pattern: #"\.package\(url: [^\n]+\),"#)
        let declared = dependency.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).map { String(manifest[Range($0.range, in: manifest)!]) }
        #expect(!declared.isEmpty)
        for line in declared { #expect(derived.contains(line), "the dependency manifest lacks \(line)") }
        #expect(!derived.contains("products:"), "the derived manifest keeps the package's products, which name its targets")
        let targetKinds = [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary(", ".plugin(", ".macro("]
        let targets = targetKinds.map { derived.components(separatedBy: $0).count - 1 }.reduce(0, +)
        #expect(targets == 1, "one target, not \(targets):\n\(derived)")
        #expect(derived.contains(#"name: "Dependencies""#))
    }
}
