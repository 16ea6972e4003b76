"""The peak-memory measure the model-file tests use (``tests/resident.py``), against buffers
of known size."""

import numpy as np
import resident

MiB = 2**20


def test_a_touched_buffer_counts_and_a_block_that_allocates_nothing_does_not():
    with resident.peak() as touched:
        buffer = np.ones(64 * MiB // 8)  # 64 MiB, written
        del buffer
    with resident.peak() as idle:
        pass
    assert 60 * MiB <= touched.bytes <= 80 * MiB
    assert idle.bytes < 4 * MiB


def test_the_peak_is_measured_from_the_blocks_start_not_the_process_s():
    before = np.ones(96 * MiB // 8)  # resident before the block: not the block's
    with resident.peak() as found:
        small = np.ones(8 * MiB // 8)
        del small
    del before
    assert 7 * MiB <= found.bytes <= 16 * MiB


def test_memory_freed_before_the_block_and_reused_in_it_counts():
    """A freed 16 MiB buffer raises glibc's mmap threshold to its size, so the 1 MiB buffers
    made and freed next leave heap memory glibc keeps, which the block's allocations reuse:
    they must count all the same: without the trim 0 of the 8 MiB counted (and the test above,
    the first test of a pytest worker in a clean clone's run, counted 2 of its 8)."""
    first = np.ones(16 * MiB // 8)
    del first
    pieces = [np.ones(MiB // 8) for _ in range(24)]
    del pieces
    with resident.peak() as found:
        parts = [np.ones(MiB // 8) for _ in range(8)]
        del parts
    assert 7 * MiB <= found.bytes <= 16 * MiB
