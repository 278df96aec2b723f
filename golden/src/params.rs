//! A parameter outside its range, and the range check both cores' parameters use.

use std::fmt;

/// A parameter outside its range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub name: &'static str,
    pub value: u64,
    pub expected: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {} is out of range: expected {}",
            self.name, self.value, self.expected
        )
    }
}

impl std::error::Error for ParamError {}

/// `value` within `lo..=hi`, or an error naming the parameter and the range.
pub fn check(name: &'static str, value: u32, (lo, hi): (u32, u32)) -> Result<(), ParamError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ParamError {
            name,
            value: value as u64,
            expected: format!("{lo}..={hi}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_outside_its_range_names_the_parameter_and_the_range() {
        assert_eq!(check("limit", 5, (1, 10)), Ok(()));
        assert_eq!(check("limit", 1, (1, 10)), Ok(()));
        assert_eq!(check("limit", 10, (1, 10)), Ok(()));
        let e = check("limit", 11, (1, 10)).unwrap_err();
        assert_eq!(e.to_string(), "limit = 11 is out of range: expected 1..=10");
    }
}
