//! `colored`'s `Colorize` methods that the text format uses, as the
//! identity, for builds without the `terminal` feature (the browser shows
//! the report as plain text).

macro_rules! plain {
    ($($method:ident),+) => {
        $(fn $method(self) -> String {
            self.to_string()
        })+
    };
}

pub(crate) trait Colorize: Sized + ToString {
    plain!(bold, dimmed, red, green, yellow, cyan);
}

impl Colorize for &str {}
impl Colorize for &String {}
