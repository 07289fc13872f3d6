//! A zip archive of stored (uncompressed) entries, the part of the format
//! every unzip tool and every LMS reads: local headers, the data, a central
//! directory and its end record. No compression: the package's largest
//! files are wasm and JavaScript that the host compresses on the wire
//! anyway, and stored entries keep this writer small enough to check by eye.

/// The most entries and bytes an archive may hold without zip64 (which
/// this writer does not write): past them it refuses, never truncates.
pub const ENTRIES_MAX: usize = 0xFFFF;
pub const BYTES_MAX: u64 = 0xFFFF_FFFF;

/// One file of the archive: its path inside it ("folder/name") and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The archive's bytes, or why it cannot be written (a path that would
/// escape the folder it is unpacked in, a duplicate, too many or too large).
pub fn write(entries: &[Entry]) -> Result<Vec<u8>, String> {
    if entries.len() > ENTRIES_MAX {
        return Err(format!("a zip without zip64 holds at most {ENTRIES_MAX} files, not {}", entries.len()));
    }
    let total_bytes: u64 = entries.iter().map(|entry| entry.bytes.len() as u64 + 30 + 46 + 2 * entry.path.len() as u64).sum();
    if total_bytes + 22 > BYTES_MAX {
        return Err(format!("a zip without zip64 holds at most {BYTES_MAX} bytes"));
    }
    for (index, entry) in entries.iter().enumerate() {
        check_path(&entry.path)?;
        if entries[..index].iter().any(|earlier| earlier.path == entry.path) {
            return Err(format!("{} is in the package twice", entry.path));
        }
    }
    let mut out = Vec::with_capacity(total_bytes as usize + 22);
    let mut central = Vec::new();
    for entry in entries {
        // The sizes fit in 32 bits: the total was checked above.
        let offset = out.len() as u32;
        let (crc, size, name) = (crc32(&entry.bytes), entry.bytes.len() as u32, entry.path.as_bytes());
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common_fields(&mut out, crc, size, name.len() as u16);
        out.extend_from_slice(name);
        out.extend_from_slice(&entry.bytes);

        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        // Made by: version 2.0, MS-DOS attributes (the plain choice).
        central.extend_from_slice(&20u16.to_le_bytes());
        common_fields(&mut central, crc, size, name.len() as u16);
        // Comment length, disk number, internal and external attributes.
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let (central_offset, central_bytes, count) = (out.len() as u32, central.len() as u32, entries.len() as u16);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    // This disk, the disk where the directory starts: one disk.
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&central_bytes.to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    // No archive comment.
    out.extend_from_slice(&[0; 2]);
    Ok(out)
}

/// The fields a local header and a central directory entry share, from
/// "version needed" to "extra field length".
fn common_fields(out: &mut Vec<u8>, crc: u32, size: u32, name_bytes: u16) {
    // Version needed 2.0; flags: bit 11, the name is UTF-8.
    out.extend_from_slice(&20u16.to_le_bytes());
    out.extend_from_slice(&0x0800u16.to_le_bytes());
    // Method 0: stored.
    out.extend_from_slice(&0u16.to_le_bytes());
    // A fixed time and date (1980-01-01 00:00): the same set, the same bytes.
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&((1 << 5) | 1u16).to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&name_bytes.to_le_bytes());
    // No extra field.
    out.extend_from_slice(&0u16.to_le_bytes());
}

/// A path an unzip tool writes inside the folder it unpacks into: relative,
/// '/'-separated, no "." or ".." part, no backslash or control character.
fn check_path(path: &str) -> Result<(), String> {
    let bad_part = path.split('/').any(|part| part.is_empty() || part == "." || part == "..");
    if path.len() > 255 || bad_part || path.chars().any(|c| c == '\\' || c == ':' || c.is_control()) {
        return Err(format!("{path:?} is not a plain relative path for a zip"));
    }
    Ok(())
}

/// CRC-32 as zip uses it (IEEE 802.3, reflected, polynomial 0xEDB88320).
pub fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, byte| {
        let mut crc = crc ^ u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
        crc
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, text: &str) -> Entry {
        Entry { path: path.to_string(), bytes: text.as_bytes().to_vec() }
    }

    #[test]
    fn crc32_matches_the_published_check_value() {
        // The check value of CRC-32/ISO-HDLC for "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn an_archive_reads_back_entry_by_entry() {
        let entries = [entry("imsmanifest.xml", "<manifest/>"), entry("first/a.html", "é and ∞"), entry("empty.txt", "")];
        let zip = write(&entries).unwrap();
        // Walk the local headers as an unzip tool does.
        let mut at = 0;
        for expected in &entries {
            assert_eq!(&zip[at..at + 4], &[0x50, 0x4b, 0x03, 0x04]);
            let field =
                |from: usize, width: usize| zip[at + from..at + from + width].iter().rev().fold(0u64, |n, b| n << 8 | u64::from(*b));
            assert_eq!(field(8, 2), 0, "stored");
            assert_eq!(field(14, 4), u64::from(crc32(&expected.bytes)));
            let (size, name_len) = (field(18, 4) as usize, field(26, 2) as usize);
            assert_eq!(size, expected.bytes.len());
            assert_eq!(&zip[at + 30..at + 30 + name_len], expected.path.as_bytes());
            assert_eq!(&zip[at + 30 + name_len..at + 30 + name_len + size], expected.bytes.as_slice());
            at += 30 + name_len + size;
        }
        assert_eq!(&zip[at..at + 4], &[0x50, 0x4b, 0x01, 0x02], "the central directory follows the data");
        let end = zip.len() - 22;
        assert_eq!(&zip[end..end + 4], &[0x50, 0x4b, 0x05, 0x06]);
        assert_eq!(u16::from_le_bytes([zip[end + 10], zip[end + 11]]), 3);
        assert_eq!(u32::from_le_bytes(zip[end + 16..end + 20].try_into().unwrap()) as usize, at);
        assert_eq!(write(&entries).unwrap(), zip, "the same files give the same bytes");
    }

    #[test]
    fn paths_that_could_escape_or_repeat_are_refused() {
        for path in ["../evil.js", "/etc/passwd", "a//b", "a/./b", "C:/x", "a\\b", "", "dir/"] {
            assert!(write(&[entry(path, "x")]).is_err(), "{path:?}");
        }
        assert!(write(&[entry("a.js", "1"), entry("a.js", "2")]).unwrap_err().contains("twice"));
    }
}
