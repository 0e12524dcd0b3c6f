import Records
import TableDiff
/// CRC-32C (Castagnoli): the checksum of every part of a journal file.
///
/// The reflected polynomial 0x82F63B78, initial value and final XOR
/// 0xFFFFFFFF — the CRC of iSCSI, ext4 and LevelDB. `crc32c("123456789")` is
/// 0xE3069283. Computed eight bytes at a time ("slicing by 8"): about a byte
/// per cycle, so checking a 100 MB file costs a few tens of milliseconds.
enum _CRC32C {
    /// The eight lookup tables, 256 entries each, one after the other.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var crc = UInt32(n)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[n] = crc
        }
        for n in 0..<256 {
            var crc = tables[n]
            for k in 1..<8 {
                crc = tables[Int(crc & 0xFF)] ^ (crc >> 8)
                tables[k * 256 + n] = crc
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { t in
            var k = 0
            let count = bytes.count
            while k + 8 <= count {
                let low = UInt32(bytes[k]) | UInt32(bytes[k + 1]) << 8 | UInt32(bytes[k + 2]) << 16 | UInt32(bytes[k + 3]) << 24
                let x = crc ^ low
                crc = t[7 * 256 + Int(x & 0xFF)] ^ t[6 * 256 + Int((x >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((x >> 16) & 0xFF)] ^ t[4 * 256 + Int(x >> 24)]
                    ^ t[3 * 256 + Int(bytes[k + 4])] ^ t[2 * 256 + Int(bytes[k + 5])]
                    ^ t[1 * 256 + Int(bytes[k + 6])] ^ t[Int(bytes[k + 7])]
                k += 8
            }
            while k < count {
                crc = t[Int((crc ^ UInt32(bytes[k])) & 0xFF)] ^ (crc >> 8)
                k += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of a part of an array.
    static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        bytes.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
