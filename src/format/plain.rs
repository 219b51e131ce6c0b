//! `colored`'s `Colorize` methods that the text format uses, as the
//! identity, for builds without the `terminal` feature (the browser shows
//! the report as plain text).

pub trait Colorize: Sized + ToString {
    fn bold(self) -> String {
        self.to_string()
    }
    fn dimmed(self) -> String {
        self.to_string()
    }
    fn red(self) -> String {
        self.to_string()
    }
    fn green(self) -> String {
        self.to_string()
    }
    fn yellow(self) -> String {
        self.to_string()
    }
    fn cyan(self) -> String {
        self.to_string()
    }
}

impl Colorize for &str {}
impl Colorize for &String {}
