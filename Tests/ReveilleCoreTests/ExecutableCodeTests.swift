import ReveilleSystem
import Testing

/// Which pages of its own code the idle agent may give back: only those the file will supply
/// again (`/proc/PID/pagemap`: bit 63 present, bit 62 swapped, bit 61 a file page).
@Suite("Executable code pages")
struct ExecutableCodeTests {
    let present: UInt64 = 1 << 63, swapped: UInt64 = 1 << 62, file: UInt64 = 1 << 61

    @Test func pagesOfTheFileAndPagesNotMappedYetMayBeGivenBack() {
        #expect(ExecutableCode.isFilePage(pagemapEntry: present | file | 0x1234))
        #expect(ExecutableCode.isFilePage(pagemapEntry: 0), "not mapped yet: the file supplies it")
    }

    @Test func aPrivateCopyIsKeptResidentOrSwappedOut() {
        // A breakpoint or a uprobe wrote the page: a private copy, lost if given back.
        #expect(!ExecutableCode.isFilePage(pagemapEntry: present | 0x1234))
        #expect(!ExecutableCode.isFilePage(pagemapEntry: swapped | 0x55), "a private copy swapped out is not the file's either")
    }

    @Test func theTestProcessFindsItsOwnCodeMapping() {
        // This test runner's own executable, as the agent finds its own.
        #expect(!ExecutableCode.mapping.isEmpty)
        #expect(ExecutableCode.mapping.allSatisfy { $0.count > 0 && $0.lowerBound % 4096 == 0 })
    }
}
