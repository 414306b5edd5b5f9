#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| indus_tool_fuzz::media(data));
