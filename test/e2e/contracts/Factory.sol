// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A contract another creates, with the value it was sent.
contract Child {
    constructor() payable {}
}

/// Creates contracts, forwards ether and reverts: the internal operations Otterscan shows.
contract Factory {
    function make() external payable returns (address) {
        return address(new Child{value: msg.value}());
    }

    function pay(address payable to) external payable {
        (bool isSent,) = to.call{value: msg.value}("");
        require(isSent, "not sent");
    }

    function fail() external pure {
        revert("nope");
    }
}
