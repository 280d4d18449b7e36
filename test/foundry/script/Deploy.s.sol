// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

import {Vault} from "../src/Vault.sol";
import {Vm, VM_ADDRESS} from "../src/Vm.sol";

/// `forge script script/Deploy.s.sol --broadcast`: deploys a Vault locked for an hour and deposits once.
contract Deploy {
    Vm constant vm = Vm(VM_ADDRESS);

    function run() external returns (Vault vault) {
        vm.startBroadcast();
        vault = new Vault{value: 1 ether}(3600);
        vault.deposit{value: 2 ether}();
        vm.stopBroadcast();
    }
}
