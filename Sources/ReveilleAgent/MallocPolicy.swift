import CLinux

/// glibc's malloc as a long-running agent needs it: what is freed goes back to the kernel.
///
/// By default glibc raises its mmap and trim thresholds to the largest block freed so far (up to
/// 32 MiB): after the store is read at start or a page of the list is sent, later large blocks
/// come from the heap and its free top is kept: the idle agent with 1,000 alarms loaded from the
/// store held 7.2 MiB of heap, 1.4 MiB with fixed thresholds. They keep the default's 128 KiB: a
/// block that large gets pages of its own, returned when freed, and a heap top freed past
/// 128 KiB is trimmed.
package enum MallocPolicy {
    /// The largest block served from the heap, and the free heap top kept.
    package static let threshold: Int32 = 128 << 10

    /// Fixes both thresholds (setting either one ends glibc's raising them); call before the store is read.
    package static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, threshold)
        _ = mallopt(M_TRIM_THRESHOLD, threshold)
    }
}
