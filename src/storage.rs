//! This browser's local storage, for choices worth remembering (theme, code
//! language, quiz progress). Never sent anywhere; silently absent where the
//! browser forbids it (some iframes, private modes).

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn set(key: &str, value: &str) {
    if let Some(storage) = storage() {
        let _ = storage.set_item(key, value);
    }
}
